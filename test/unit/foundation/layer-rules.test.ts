import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Which room may import which is scripts/layers.json's (import-graph.test.ts); biome.json holds
// the finer rules within a room: the store's query builders are its own, and what runs in a
// browser imports no node: module. This lints, with that very config, one file per rule that makes
// a forbidden import and one that makes an allowed one, so a rule that stops holding (a pattern
// that no longer matches after a move, say) fails here and not in review.
const repo = resolve(import.meta.dirname, "../../..");
const biome = join(repo, "node_modules/.bin/biome");

/** Room → [a path in it, a forbidden import, an allowed import]. */
const rooms: Record<string, [string, string, string]> = {
  // vcon-archivist/verify runs in browsers, on the formats: no file of the verifier, the formats,
  // the look-ups or the bounded reads imports a node: module; the formats import nothing of ours,
  // the verifier the formats alone (no HTTP notion: the API's errors are the server's).
  "verify (node:)": ["src/verify/y.ts", "node:crypto", "@noble/hashes/sha2.js"],
  "verify (an HTTP notion)": [
    "src/verify/bundle/x.ts",
    "../../errors/api-error.js",
    "../../formats/cbor/index.js",
  ],
  "verify (a look-up)": ["src/verify/w.ts", "../lookup/public-api.js", "./payload.js"],
  "formats (node:)": ["src/formats/mmr/x.ts", "node:crypto", "../crypto/sha256.js"],
  "formats (node fast paths)": ["src/formats/cose/x.ts", "../../core/node/crypto.js", "../cbor/index.js"],
  "formats (a verdict)": ["src/formats/tlog/x.ts", "../../verify/verdict/verdict.js", "./note.js"],
  "formats (an HTTP notion)": ["src/formats/record/x.ts", "../../errors/api-error.js", "../ids.js"],
  "lookup (node:)": ["src/lookup/x.ts", "node:http", "../verify/index.js"],
  "lookup (an HTTP notion)": ["src/lookup/y.ts", "../errors/api-error.js", "../net/bounded-body.js"],
  "net (node:)": ["src/net/x.ts", "node:stream", "../formats/coded-error.js"],
  // The store compiles every query: no room outside it builds one with the store's Where or
  // SQL builders; a list's specification (core) is what a service hands it.
  "services: Where, the store's query builders": [
    "src/services/records/x.ts",
    "../../store/query/sql.js",
    "../../core/filters/list-spec.js",
  ],
  "services: attribute SQL, the store's query builders": [
    "src/services/y.ts",
    "../store/records/attribute-sql.js",
    "../store/records/record-lists.js",
  ],
  "services: access SQL, the store's query builders": [
    "src/services/z.ts",
    "../store/records/access-sql.js",
    "../core/access/restriction.js",
  ],
  "workers, the store's query builders": [
    "src/workers/y.ts",
    "../store/records/record-filters.js",
    "../store/ledger/seals.js",
  ],
  "the shell, the store's query builders": [
    "src/cli/x.ts",
    "../store/records/narrowed-source.js",
    "../store/drivers/open.js",
  ],
  "wake, the store's query builders": ["src/wake/x.ts", "../store/query/sql.js", "../core/api/ids.js"],
};

const source = (from: string) => `import { a } from "${from}";\n\nexport const b = a;\n`;

let dir: string;
let refusals: Map<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "layer-rules-"));
  const config = JSON.parse(readFileSync(join(repo, "biome.json"), "utf8"));
  config.vcs = { enabled: false };
  config.files = { includes: ["**"] };
  writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
  for (const [path, forbidden, allowed] of Object.values(rooms)) {
    for (const [suffix, from] of [
      ["forbidden", forbidden],
      ["allowed", allowed],
    ] as const) {
      const file = join(dir, path.replace(/\.ts$/, `-${suffix}.ts`));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, source(from));
    }
  }
  let out: string;
  try {
    out = execFileSync(biome, ["lint", "--reporter=json", "--max-diagnostics=200", "."], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (e) {
    out = (e as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as {
    diagnostics: Array<{
      category: string;
      location: { path: string | { file: string } };
      message?: string;
      description?: string;
    }>;
  };
  refusals = new Map(
    report.diagnostics
      .filter((d) => d.category === "lint/style/noRestrictedImports")
      .map((d) => {
        const path = typeof d.location.path === "string" ? d.location.path : d.location.path.file;
        return [path, d.description ?? d.message ?? ""];
      }),
  );
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("import rules within rooms (biome.json)", () => {
  for (const [room, [path]] of Object.entries(rooms)) {
    it(`${room}: a forbidden import fails the lint with the rule's reason`, () => {
      const reason = refusals.get(path.replace(/\.ts$/, "-forbidden.ts"));
      expect(reason, `no refusal for ${path}`).toBeTruthy();
      expect(reason!.length).toBeGreaterThan(20);
      if (room.endsWith("query builders") && !room.startsWith("the store"))
        expect(reason).toContain("the store compiles every query");
    });
    it(`${room}: an allowed import passes`, () => {
      expect(refusals.has(path.replace(/\.ts$/, "-allowed.ts"))).toBe(false);
    });
  }
});
