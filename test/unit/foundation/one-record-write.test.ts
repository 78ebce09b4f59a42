import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repo } from "../../helpers/import-graph.js";

// Issue 73: one function writes every record kind (`writeRecords`, src/services/write). The service's
// own records (a key rotation, an accepted restore) once went into the store by a transaction of
// their own, past the group commit, its quota rule and its wake-up. The store's record inserts are
// now named only by the write path's group writers, and those only by `writeRecords`; what else a
// writer needs (no quota for the service's own events) is said on the record it hands over.
const WRITERS = {
  asset: "src/services/write/asset-event-group.ts",
  free: "src/services/write/free-event-group.ts",
  one: "src/services/write/write-records.ts",
};
/** Each name → the files outside the store that may name it. */
const ALLOWED: Record<string, string[]> = {
  insertAssets: [WRITERS.asset],
  insertAssetEvents: [WRITERS.asset],
  insertAssetEventsIfUnchanged: [WRITERS.asset],
  insertFreeEvents: [WRITERS.free],
  writeEventGroup: [WRITERS.asset, WRITERS.one],
  writeFreeEventGroup: [WRITERS.free, WRITERS.one],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each code line of `text` (not a comment's) naming a writer it may not, as "file:line name". */
function strayWrites(file: string, text: string): string[] {
  if (file.startsWith("src/store/")) return [];
  return text.split("\n").flatMap((line, i) => {
    if (/^\s*(\/\/|\/?\*)/.test(line)) return [];
    return Object.entries(ALLOWED).flatMap(([name, files]) =>
      new RegExp(`\\b${name}\\b`).test(line) && !files.includes(file) ? [`${file}:${i + 1} ${name}`] : [],
    );
  });
}

describe("one function writes every record kind (issue 73)", () => {
  it("nothing in src outside the store and the write path's group writers inserts a record", () => {
    const found = sources(join(repo, "src")).flatMap((path) =>
      strayWrites(relative(repo, path).split("\\").join("/"), readFileSync(path, "utf8")),
    );
    expect(found).toEqual([]);
  });

  it("the check fires on a stray insert or group write, and not on a comment or a longer name", () => {
    const call = "  const [row] = await insertFreeEvents(tx, [event]);";
    expect(
      strayWrites("src/services/ledger/x.ts", `import { insertFreeEvents } from "y";\n${call}\n`),
    ).toEqual(["src/services/ledger/x.ts:1 insertFreeEvents", "src/services/ledger/x.ts:2 insertFreeEvents"]);
    expect(strayWrites("src/services/x.ts", "await writeFreeEventGroup(tx, events);\n")).toEqual([
      "src/services/x.ts:1 writeFreeEventGroup",
    ]);
    expect(strayWrites(WRITERS.free, call)).toEqual([]);
    expect(strayWrites("src/store/records/x.ts", call)).toEqual([]);
    expect(strayWrites("src/x.ts", " * not by insertFreeEvents itself\n// insertAssets\n")).toEqual([]);
    expect(strayWrites("src/x.ts", "insertAssetsLater(db);\n")).toEqual([]);
  });
});
