import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Command as Cli } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import { fullProgram } from "../../../src/cli/program.js";

// Every `archivist …` command line the pages (src/web) and the docs show a reader is held to the
// real command tree (commander): the command exists, a bare word after a command with
// subcommands is one of them (else `archivist verify receipt` would quietly verify a file named
// "receipt"), and every `--option` is one the command declares.
const root = join(import.meta.dirname, "../../..");

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && ext.test(d.name))
    .map((d) => relative(root, join(d.parentPath, d.name)));
}

const SOURCES = [
  ...files("src/web", /\.(ts|html)$/),
  ...files("docs", /\.md$/),
  "README.md",
  "plugins/conserver/README.md",
];

/** Nouns "archivist" qualifies in prose (the archivist link, chain, node chain, requests): never commands. */
const PROSE = new Set(["link", "chain", "node", "requests"]);

interface Shown {
  where: string;
  line: string;
  tokens: string[];
}

/** Each `archivist <words…>` up to the end of its command (a quote, a pipe, a redirect, a comment). */
function shownCommandLines(): Shown[] {
  const out: Shown[] = [];
  for (const file of SOURCES) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    for (const [i, text] of lines.entries())
      for (const m of text.matchAll(/\barchivist(?: --)? ([a-z][^`;|&>#)"'<\n]*)/g)) {
        const tokens = (m[1] ?? "")
          .trim()
          .split(/\s+/)
          .map((t) => t.replace(/[.,:]+$/, ""));
        if (PROSE.has(tokens[0] ?? "")) continue;
        out.push({ where: `${file}:${i + 1}`, line: m[0], tokens });
      }
  }
  return out;
}

const longOptions = (c: Cli) => new Set(c.options.map((o) => o.long).filter(Boolean));

/** What is wrong with one shown command line, or undefined when the CLI takes it. */
function problem(cli: Cli, tokens: string[]): string | undefined {
  let [name, ...rest] = tokens;
  if (name === "help") [name, ...rest] = rest;
  let command = cli.commands.find((c) => c.name() === name);
  if (!command) return `no command ${name}`;
  const sub = rest[0];
  if (command.commands.length && sub && /^[a-z][a-z-]*$/.test(sub)) {
    const found = command.commands.find((c) => c.name() === sub);
    if (!found)
      return `${name} has no subcommand ${sub} (it has ${command.commands.map((c) => c.name()).join(", ")})`;
    command = found;
  }
  // A command that reads its own arguments (bench, conserver) declares no options to commander.
  if (!command.options.length) return undefined;
  const known = longOptions(command);
  for (const t of rest) {
    const option = /^(--[a-z][a-z-]*)/.exec(t)?.[1];
    if (option && option !== "--help" && !known.has(option)) return `${name} has no option ${option}`;
  }
  return undefined;
}

describe("the archivist command lines the pages and docs show", () => {
  // Every command loaded and declared (the CLI itself loads only the one it runs).
  let cli: Cli;
  beforeAll(async () => {
    cli = await fullProgram(() => undefined);
  });
  const shown = shownCommandLines();

  it("finds them in the pages and the docs", () => {
    expect(shown.length).toBeGreaterThan(40);
    expect(shown.some((s) => s.where.startsWith("src/web/"))).toBe(true);
  });

  it("names only commands, subcommands and options the CLI has", () => {
    const wrong = shown
      .map((s) => ({ s, why: problem(cli, s.tokens) }))
      .filter((x) => x.why)
      .map((x) => `${x.s.where}: ${x.s.line.trim()} — ${x.why}`);
    expect(wrong).toEqual([]);
  });

  it("would catch a command, a subcommand or an option the CLI lacks", () => {
    expect(problem(cli, ["verify", "receipt", "--keys", "k"])).toMatch(/no subcommand receipt/);
    expect(problem(cli, ["verify", "record.json", "--receipt", "r.cose", "--keys", "k"])).toBeUndefined();
    expect(problem(cli, ["verify", "record.json", "--reciept", "r"])).toMatch(/no option --reciept/);
    expect(problem(cli, ["prove", "x"])).toMatch(/no command prove/);
  });
});
