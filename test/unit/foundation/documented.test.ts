import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The docs tell the truth about what a user can reach: every package entry is named in the
// README, and every environment variable the code reads is in a configuration table (the
// service's and CLI's in README.md, the conserver plugins' in their own README).
const repo = resolve(import.meta.dirname, "../../..");
const read = (path: string) => readFileSync(join(repo, path), "utf8");
const readme = read("README.md");
const pluginReadme = read("plugins/conserver/README.md");

function sources(dir: string): string[] {
  return readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => join(dir, f));
}

const NPM_SETS = new Set(["INIT_CWD"]);

/**
 * The variables a file reads: `process.env.X`, `env.X`, `e.X`, `env["X"]`, and the names a
 * reader is handed as text (`int(e, "ARCHIVIST_…")`, a table of `CONSERVER_…` names).
 */
function envReads(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b(?:process\.env|env|e)(?:\.|\[")([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\b/g))
    names.add(m[1] as string);
  for (const m of text.matchAll(/"((?:ARCHIVIST|CONSERVER)_[A-Z0-9_]+)"/g)) names.add(m[1] as string);
  // What npm sets for the scripts it runs is no setting of ours.
  return [...names].filter((n) => !NPM_SETS.has(n));
}

const readers = (dir: string) =>
  sources(dir)
    .map((path) => ({ path, text: read(path) }))
    .filter(({ text }) => /process\.env|Record<string, string \| undefined>/.test(text));

describe("the docs name what the package offers", () => {
  it("every package entry is in the README", () => {
    const pkg = JSON.parse(read("package.json")) as { name: string; exports: Record<string, unknown> };
    const entries = Object.keys(pkg.exports)
      .filter((k) => k !== "./package.json")
      .map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`));
    expect(entries.length).toBeGreaterThanOrEqual(4);
    expect(entries.filter((e) => !readme.includes(`\`${e}\``))).toEqual([]);
    expect(readme).toMatch(
      new RegExp(`${["one", "two", "three", "four", "five"][entries.length - 1]} entries`),
    );
  });

  it("every environment variable the service and the CLI read is in the README's configuration", () => {
    const config = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Architecture"));
    const read = readers("src").flatMap(({ path, text }) => envReads(text).map((name) => ({ path, name })));
    expect(read.map((r) => r.name)).toEqual(expect.arrayContaining(["DATABASE_URL", "ARCHIVIST_S3_BUCKET"]));
    const missing = read.filter(({ name }) => !config.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it("every environment variable the conserver plugins read is in their README or the service's", () => {
    const read = readers("plugins").flatMap(({ path, text }) =>
      envReads(text).map((name) => ({ path, name })),
    );
    expect(read.map((r) => r.name)).toEqual(expect.arrayContaining(["CONSERVER_SCITT_KEY_FILE", "VCON_DIR"]));
    const missing = read.filter(
      ({ name }) => !pluginReadme.includes(`\`${name}\``) && !readme.includes(`\`${name}\``),
    );
    expect(missing).toEqual([]);
  });
});
