import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  arrows,
  closure,
  fileCircles,
  type Graph,
  httpNotions,
  importGraph,
  layerTable,
  loadRules,
  type RuleBook,
  repo,
  roomCircles,
  roomOf,
  violations,
} from "../../helpers/import-graph.js";

// scripts/layers.json is the one rule book of which room may import which. The sources are held
// to it here (every import, type-only ones too), the architecture doc's table is made from it, and
// a small tree with a back arrow, a circle and a foreign package shows each check firing.
const rules = loadRules();
const graph = importGraph(["src", "plugins", "bench"]);
const TABLE_HEAD = "| room | holds | may import |";

describe("the layer rules (scripts/layers.json)", () => {
  it("every source file lies in a room, and every import is one its room may make", () => {
    expect(graph.files.length).toBeGreaterThan(400);
    expect(graph.files.filter((f) => !roomOf(rules, f))).toEqual([]);
    expect(violations(rules, graph)).toEqual([]);
  });

  it("no circle between rooms", () => {
    expect(roomCircles(rules, graph)).toEqual([]);
  });

  it("no circle between files (issue 73)", () => {
    // Files that import each other round can be read in no order.
    expect(fileCircles(graph)).toEqual([]);
  });

  it("the formats and the small rooms depend on nothing of ours; the verifier and the errors on the formats alone", () => {
    const leaves = new Set(["formats", "wake", "batching"]);
    for (const room of rules.rooms.filter((r) => leaves.has(r.name))) expect(room.mayImport).toEqual([]);
    for (const name of ["verify", "errors"])
      expect(rules.rooms.find((r) => r.name === name)!.mayImport).toEqual(["formats"]);
  });

  it("the formats (src/formats) are a leaf: themselves and @noble only", () => {
    const room = rules.rooms.find((r) => r.name === "formats")!;
    expect(room.paths).toEqual(["src/formats/"]);
    expect(room.packages).toEqual(["@noble/*"]);
    const outside = graph.external.filter((e) => e.from.startsWith("src/formats/")).map((e) => e.to);
    expect(new Set(outside)).toEqual(new Set(["@noble/hashes", "@noble/curves", "@noble/post-quantum"]));
    expect(
      graph.internal.filter((e) => e.from.startsWith("src/formats/") && !e.to.startsWith("src/formats/")),
    ).toEqual([]);
  });

  it("the verifier's entries reach files of src/verify and src/formats only, and its pure packages", () => {
    const room = rules.rooms.find((r) => r.name === "verify")!;
    expect(room.paths).toEqual(["src/verify/"]);
    // canonicalize: RFC 8785's JSON canonical form, pure and dependency-free (an analysis's derivation).
    expect(room.packages).toEqual(["@noble/*", "canonicalize"]);
    for (const entry of room.entries!) {
      const reach = closure(graph, [entry]);
      expect(reach.length).toBeGreaterThan(20);
      expect(reach.filter((f) => !f.startsWith("src/verify/") && !f.startsWith("src/formats/"))).toEqual([]);
    }
    const outside = graph.external.filter((e) => e.from.startsWith("src/verify/")).map((e) => e.to);
    expect(new Set(outside)).toEqual(new Set(["@noble/hashes", "canonicalize"]));
  });

  it("no file of the verifier or the formats imports an HTTP notion (the API's errors, the edge, a server)", () => {
    expect(httpNotions(graph, ["src/verify/", "src/formats/"])).toEqual([]);
  });

  it("the core stands on the formats, never on the verifier", () => {
    expect(arrows(graph, "src/core/", "src/verify/")).toEqual([]);
    expect(rules.rooms.find((r) => r.name === "core")!.mayImport).not.toContain("verify");
  });

  it("the rest of the tree enters the verifier only through index.ts", () => {
    const room = rules.rooms.find((r) => r.name === "verify")!;
    expect(room.entries).toEqual(["src/verify/index.ts"]);
    const deep = graph.internal.filter(
      (e) =>
        !e.from.startsWith("src/verify/") && e.to.startsWith("src/verify/") && !room.entries!.includes(e.to),
    );
    expect(deep).toEqual([]);
  });

  it("the CLI reaches the store and the keys only through the services", () => {
    const cli = rules.rooms.find((r) => r.name === "cli")!;
    expect(cli.mayImport.filter((r) => r.startsWith("store"))).toEqual([]);
    expect(cli.mayImport).not.toContain("keys");
    const reached = graph.internal.filter(
      (e) => e.from.startsWith("src/cli/") && (e.to.startsWith("src/store/") || e.to.startsWith("src/keys/")),
    );
    expect(reached).toEqual([]);
    // The rule fires: an operator command importing the store or the keys room is named.
    const stray: Graph = {
      files: ["src/cli/partition.ts", "src/store/archive/partitioning.ts", "src/keys/log-guard.ts"],
      internal: [
        { from: "src/cli/partition.ts", to: "src/store/archive/partitioning.ts" },
        { from: "src/cli/partition.ts", to: "src/keys/log-guard.ts" },
      ],
      external: [],
    };
    expect(violations(rules, stray)).toEqual([
      "src/cli/partition.ts → src/store/archive/partitioning.ts: cli may not import store-archive",
      "src/cli/partition.ts → src/keys/log-guard.ts: cli may not import keys",
    ]);
  });

  it("docs/architecture.md's table is the rule book's (WRITE_DOCS=1 rewrites it)", () => {
    const path = join(repo, "docs/architecture.md");
    const doc = readFileSync(path, "utf8");
    const start = doc.indexOf(TABLE_HEAD);
    expect(start).toBeGreaterThan(0);
    const end = doc.indexOf("\n\n", start);
    const table = doc.slice(start, end);
    const wanted = layerTable(rules);
    if (process.env.WRITE_DOCS === "1" && table !== wanted)
      writeFileSync(path, doc.slice(0, start) + wanted + doc.slice(end));
    else expect(table).toBe(wanted);
  });
});

describe("the checks fire", () => {
  let dir: string;
  let small: RuleBook;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "import-graph-"));
    small = {
      aliases: { "small/low": "src/low/index.ts" },
      rooms: [
        {
          name: "low",
          paths: ["src/low/"],
          holds: "",
          mayImport: [],
          packages: ["@noble/*"],
          entries: ["src/low/index.ts", "src/low/back.ts", "src/low/node.ts"],
        },
        { name: "mid", paths: ["src/mid/"], holds: "", mayImport: ["low"] },
        { name: "high", paths: ["src/high/", "src/top.ts"], holds: "", mayImport: ["mid", "low"] },
      ],
    };
    write("scripts/layers.json", JSON.stringify(small));
    write("src/low/index.ts", 'import { sha256 } from "@noble/hashes/sha2.js";\nexport const a = sha256;\n');
    // A back arrow up two rooms, made by a type alone.
    write("src/low/back.ts", 'import type { T } from "../high/h.js";\nexport type U = T;\n');
    write("src/low/node.ts", 'import { createHash } from "node:crypto";\nexport const h = createHash;\n');
    write("src/mid/m.ts", 'import { a } from "small/low";\nexport const m = a;\n');
    // Past the low room's entries, to a file of it no other room may import.
    write("src/low/inner.ts", "export const i = 1;\n");
    write("src/mid/deep.ts", 'import { i } from "../low/inner.js";\nexport const d = i;\n');
    write("src/high/h.ts", 'import { m } from "../mid/m.js";\nexport type T = typeof m;\n');
    write(
      "src/top.ts",
      'export { m } from "./mid/m.js";\nexport const later = () => import("./stray/s.js");\n',
    );
    write("src/stray/s.ts", "export const s = 1;\n");
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names a back arrow, a package outside the list, a file in no room, a deep import, and the circle", () => {
    const g = importGraph(["src"], dir, small);
    expect(g.internal).toContainEqual({ from: "src/mid/m.ts", to: "src/low/index.ts" });
    expect(violations(small, g).sort()).toEqual(
      [
        "src/low/back.ts → src/high/h.ts: low may not import high",
        "src/low/node.ts → node:crypto: low imports only @noble/*",
        "src/mid/deep.ts → src/low/inner.ts: low is entered only through src/low/index.ts, src/low/back.ts, src/low/node.ts",
        "src/stray/s.ts: in no room of scripts/layers.json",
        "src/top.ts → src/stray/s.ts: src/stray/s.ts is in no room of scripts/layers.json",
      ].sort(),
    );
    expect(roomCircles(small, g)).toEqual([["high", "low", "mid"]]);
    // An `import()` is an arrow too, a lazy one: loading src/top.ts does not load the file it names.
    expect(g.internal).toContainEqual({ from: "src/top.ts", to: "src/stray/s.ts", lazy: true });
    expect(g.internal).toContainEqual({ from: "src/top.ts", to: "src/mid/m.ts" });
    expect(closure(g, ["src/top.ts"])).toContain("src/stray/s.ts");
    expect(closure(g, ["src/top.ts"], { eager: true })).toEqual([
      "src/low/index.ts",
      "src/mid/m.ts",
      "src/top.ts",
    ]);
  });

  it("names a closure that leaves the verifier, an HTTP notion in a format, and a core file on the verifier", () => {
    const g: Graph = {
      files: [],
      internal: [
        { from: "src/verify/index.ts", to: "src/verify/a.ts" },
        { from: "src/verify/a.ts", to: "src/formats/b.ts" },
        { from: "src/formats/b.ts", to: "src/errors/api-error.ts" },
        { from: "src/core/c.ts", to: "src/verify/index.ts" },
        { from: "src/core/d.ts", to: "src/formats/b.ts" },
      ],
      external: [{ from: "src/verify/a.ts", to: "fastify" }],
    };
    expect(closure(g, ["src/verify/index.ts"])).toEqual([
      "src/errors/api-error.ts",
      "src/formats/b.ts",
      "src/verify/a.ts",
      "src/verify/index.ts",
    ]);
    expect(httpNotions(g, ["src/verify/", "src/formats/"])).toEqual([
      "src/formats/b.ts → src/errors/api-error.ts",
      "src/verify/a.ts → fastify",
    ]);
    expect(arrows(g, "src/core/", "src/verify/")).toEqual(["src/core/c.ts → src/verify/index.ts"]);
  });

  it("names a circle of files, and not a file two others import", () => {
    const g: Graph = {
      files: [],
      internal: [
        { from: "src/a.ts", to: "src/b.ts" },
        { from: "src/b.ts", to: "src/c.ts" },
        { from: "src/c.ts", to: "src/a.ts" },
        { from: "src/a.ts", to: "src/d.ts" },
        { from: "src/c.ts", to: "src/d.ts" },
      ],
      external: [],
    };
    expect(fileCircles(g)).toEqual([["src/a.ts", "src/b.ts", "src/c.ts"]]);
  });
});
