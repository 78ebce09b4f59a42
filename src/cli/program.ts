import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command as Cli, CommanderError } from "commander";
import { USAGE_EXIT_CODE } from "../verify/primitives.js";
import { commands } from "./commands.js";
import { throwOnExit } from "./declare.js";
import { usageExit } from "./usage.js";

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
 * The `archivist` program: every command of the registry, declared for commander or reading its
 * own arguments. Exported so that a test can hold every command line the docs and pages show to it.
 */
export function program(exit: (code: number | undefined) => void): Cli {
  const cli = new Cli("archivist")
    .description("A transparency service for conversation records, and its verifier.")
    .usage("<command> [options]")
    .version(packageVersion(), "-V, --version", "print the version")
    // Options after a command name are that command's (verify and its subcommands share --url).
    .enablePositionalOptions()
    .addHelpText("after", "\nEvery command answers --help (also: archivist help <command>).");
  for (const [name, c] of Object.entries(commands)) {
    if (c.declare) cli.addCommand(c.declare(exit).name(name).summary(c.summary));
    // Listed for help only: such a command reads its own arguments (see runCli).
    else cli.command(name).summary(c.summary).helpOption(false);
  }
  throwOnExit(cli);
  return cli;
}

/** An unknown command, asked for with or without --help, or through `help <name>`. */
function unknownCommand(name: string): number {
  process.stderr.write(`archivist: unknown command '${name}' (archivist --help lists the commands)\n`);
  return USAGE_EXIT_CODE;
}

/**
 * Runs `archivist <args>`: the exit code, or undefined for a command that keeps running (serve).
 * Help goes to stdout with 0; a usage error to stderr with 64 (USAGE_EXIT_CODE), for every
 * command; a failure names its cause (1, or for a verification its verdict's status).
 */
export async function runCli(args: string[]): Promise<number | undefined> {
  const [name, ...rest] = args;
  const own = name ? commands[name] : undefined;
  let code: number | undefined = 0;
  try {
    // Before commander: it would answer `archivist nope --help` with the program's help and 0.
    if (name && !name.startsWith("-") && name !== "help" && !own) return unknownCommand(name);
    if (name === "help" && rest[0] && !commands[rest[0]]) return unknownCommand(rest[0]);
    // `help <command>` for a command that reads its own arguments: its own help, not commander's
    // placeholder (which knows nothing of its options).
    const asked = name === "help" && rest[0] ? commands[rest[0]] : undefined;
    if (asked && !asked.declare) {
      if (asked.usage) {
        process.stdout.write(`${asked.summary}\n\n${asked.usage}\n`);
        return 0;
      }
      return await asked.run(["--help"]);
    }
    if (own && !own.declare) {
      if (own.usage && rest.some((a) => a === "--help" || a === "-h")) {
        process.stdout.write(`${own.summary}\n\n${own.usage}\n`);
        return 0;
      }
      return await own.run(rest);
    }
    await program((c) => {
      code = c;
    }).parseAsync(args, { from: "user" });
    return code;
  } catch (err) {
    const usage = usageExit(err);
    // Commander has said what is wrong already; the others' messages are written here.
    if (!(err instanceof CommanderError))
      process.stderr.write(`archivist ${name ?? ""}: ${err instanceof Error ? err.message : String(err)}\n`);
    return usage ?? 1;
  }
}
