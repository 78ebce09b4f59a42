import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// `archivist` is not on a clone's PATH after `npm install`: a command the docs tell a reader to
// type says how it runs (`npm run -s archivist -- …` or `npx archivist …`), and the README says
// every way (a clone, npm link, the installed package).
const repo = resolve(import.meta.dirname, "../../..");
const read = (path: string) => readFileSync(join(repo, path), "utf8");
const docs = [
  "README.md",
  "plugins/conserver/README.md",
  ...readdirSync(join(repo, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];

/** The lines of a Markdown file's shell code blocks (```sh, ```bash, ```shell, or none). */
function shellLines(text: string): string[] {
  const lines: string[] = [];
  for (const m of text.matchAll(/```(sh|bash|shell|console)?\n([\s\S]*?)```/g))
    lines.push(...(m[2] ?? "").split("\n"));
  return lines;
}

// `archivist` in a command's place: at the start, after a separator or `$(`, after variables set for it.
const BARE = /(?:^|[;&|(]|\$\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*archivist\s/;

describe("the docs run the CLI as a reader can", () => {
  it("no shell example types a bare `archivist` command", () => {
    const bare: string[] = [];
    for (const doc of docs)
      for (const line of shellLines(read(doc))) {
        const code = line.replace(/(^|\s)#.*$/, "");
        if (BARE.test(code)) bare.push(`${doc}: ${line.trim()}`);
      }
    expect(bare).toEqual([]);
  });

  it("the README says how `archivist` runs: in a clone, on the PATH, from the package", () => {
    const readme = read("README.md");
    for (const way of [
      "npm run -s archivist -- <command>",
      "npx archivist <command>",
      "npm link",
      "npm install -g vcon-archivist",
    ])
      expect(readme).toContain(way);
  });
});
