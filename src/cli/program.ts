import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command as Cli, CommanderError, Help } from "commander";
import { USAGE_EXIT_CODE } from "../verify/index.js";
import type { Command, Exit } from "./command.js";
import { type CommandEntry, commands } from "./commands.js";
import { throwOnExit } from "./declare.js";
import { usageExit } from "./usage.js";

/** The table's entry for a command name; none for any other word (`constructor` included). */
function entryOf(name: string | undefined): CommandEntry | undefined {
  return name !== undefined && Object.hasOwn(commands, name) ? commands[name] : undefined;
}

/** This package's version: the nearest package.json up from here (dist/src/cli or src/cli). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "vcon-archivist" && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return "unknown";
}

/**
 * The `archivist` program: the commands of `loaded` declared for commander, every other one listed
 * from the table alone, as are those that read their own arguments (see runCli). Running a command
 * needs that command loaded; the listing, the version and the suggestions need none.
 */
function program(exit: Exit, loaded: Record<string, Command> = {}): Cli {
  // A command not loaded stands in for itself: listed as its declared self would be.
  const standIns = new Map<Cli, string | undefined>();
  const help = new Help();
  const cli = new Cli("archivist")
    .description("A transparency service for conversation records, and its verifier.")
    .usage("<command> [options]")
    .version(packageVersion(), "-V, --version", "print the version")
    // Options after a command name are that command's (verify and its subcommands share --url).
    .enablePositionalOptions()
    .addHelpText("after", "\nEvery command answers --help (also: archivist help <command>).")
    .configureHelp({
      subcommandTerm: (c) =>
        standIns.has(c) ? [c.name(), standIns.get(c)].filter(Boolean).join(" ") : help.subcommandTerm(c),
    });
  for (const [name, entry] of Object.entries(commands)) {
    const declare = loaded[name]?.declare;
    if (declare) cli.addCommand(declare(exit).name(name).summary(entry.summary));
    else standIns.set(cli.command(name).summary(entry.summary).helpOption(false), entry.synopsis);
  }
  throwOnExit(cli);
  return cli;
}

/** The program with every command loaded and declared: for the tests that hold the docs' command lines to it. */
export async function fullProgram(exit: Exit): Promise<Cli> {
  const loaded = await Promise.all(
    Object.entries(commands).map(async ([name, entry]) => [name, await entry.load()] as const),
  );
  return program(exit, Object.fromEntries(loaded));
}

/** Edits (insertions, deletions, substitutions, swaps of neighbours) between two words. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  return at(a.length, b.length);
}

/**
 * The commands a mistyped name was probably meant to be, nearest first (commander's own
 * suggestion is never reached: unknown names are refused before it runs).
 */
function suggestedCommands(name: string): string[] {
  const scored = Object.keys(commands)
    .map((c) => ({ c, d: editDistance(name.toLowerCase(), c) }))
    // Commander's bound: a third of the word's length may differ, at most.
    .filter((x) => x.d > 0 && (x.d - 1) / Math.max(x.c.length, name.length) < 0.4);
  const best = Math.min(...scored.map((x) => x.d));
  return scored.filter((x) => x.d === best).map((x) => x.c);
}

/** An unknown command, asked for with or without --help, or through `help <name>`. */
function unknownCommand(name: string): number {
  const near = suggestedCommands(name);
  const hint = near.length ? ` Did you mean ${near.join(" or ")}?` : "";
  process.stderr.write(
    `archivist: unknown command '${name}'.${hint} (archivist --help lists the commands)\n`,
  );
  return USAGE_EXIT_CODE;
}

/**
 * Runs `archivist <args>`: the exit code, or undefined for a command that keeps running (serve).
 * Help goes to stdout with 0; a usage error to stderr with 64 (USAGE_EXIT_CODE), for every
 * command; a failure names its cause (1, or for a verification its verdict's status).
 */
export async function runCli(args: string[]): Promise<number | undefined> {
  const [name, ...rest] = args;
  let code: number | undefined = 0;
  try {
    // Before commander: it would answer `archivist nope --help` with the program's help and 0.
    if (name && !name.startsWith("-") && name !== "help" && !entryOf(name)) return unknownCommand(name);
    if (name === "help" && rest[0] && !entryOf(rest[0])) return unknownCommand(rest[0]);
    // The one command named is loaded (`help <command>` and `-- <command>` name it second); the
    // program's own help and version load none.
    const chosen = name === "help" || name === "--" ? rest[0] : name;
    const entry = entryOf(chosen);
    const command = await entry?.load();
    // A command that reads its own arguments answers its own help: `help <command>` too, not with
    // commander's placeholder (which knows nothing of its options).
    if (entry && command && !command.declare && name !== "--") {
      const helpAsked = name === "help";
      if (command.usage && (helpAsked || rest.some((a) => a === "--help" || a === "-h"))) {
        process.stdout.write(`${entry.summary}\n\n${command.usage}\n`);
        return 0;
      }
      return await command.run(helpAsked ? ["--help"] : rest);
    }
    const loaded = chosen && command ? { [chosen]: command } : {};
    await program((c) => {
      code = c;
    }, loaded).parseAsync(args, { from: "user" });
    return code;
  } catch (err) {
    const usage = usageExit(err);
    // Commander has said what is wrong already; the others' messages are written here.
    if (!(err instanceof CommanderError))
      process.stderr.write(`archivist ${name ?? ""}: ${err instanceof Error ? err.message : String(err)}\n`);
    return usage ?? 1;
  }
}
