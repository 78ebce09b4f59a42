import { describe, expect, it } from "vitest";
import type { ArchivistClient } from "../../../plugins/conserver/delivery/client.js";
import { AnyOfLookups, groupPageSize, type LookupSpec } from "../../../plugins/conserver/delivery/lookups.js";

const client = {} as ArchivistClient;

/** A backend holding `existing`, answering group requests the way `reads` says, with pages of `page`. */
function backend(existing: Set<string>, reads: "any" | "all", page = 100) {
  const calls: Array<{ kind: "one" | "many"; keys: string[] }> = [];
  const spec: LookupSpec<string, string> = {
    key: (q) => q,
    async one(_c, q) {
      calls.push({ kind: "one", keys: [q] });
      return existing.has(q) ? `id-${q}` : undefined;
    },
    async many(_c, qs) {
      calls.push({ kind: "many", keys: qs });
      const hits = reads === "any" ? qs.filter((q) => existing.has(q)) : [];
      const shown = hits.slice(0, page);
      return { found: new Map(shown.map((q) => [q, `id-${q}`])), complete: shown.length < page };
    },
  };
  return { spec, calls };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("AnyOfLookups", () => {
  it("looks up alone until a probe with two known things finds both, then in groups", async () => {
    const existing = new Set(["a", "b", "c"]);
    const { spec, calls } = backend(existing, "any");
    const l = new AnyOfLookups(spec);
    expect(await l.find(client, "a")).toBe("id-a");
    l.exists(client, "a");
    expect(l.grouped).toBe(false);
    l.exists(client, "b");
    await tick();
    expect(l.grouped).toBe(true);
    expect(calls.at(-1)).toEqual({ kind: "many", keys: ["a", "b"] });
    calls.length = 0;
    const answers = await Promise.all(["c", "x", "a", "c"].map((q) => l.find(client, q)));
    expect(answers).toEqual(["id-c", undefined, "id-a", "id-c"]);
    // One request for the four, each distinct key asked once.
    expect(calls).toEqual([{ kind: "many", keys: ["c", "x", "a"] }]);
  });

  it("keeps single look-ups for good when the probe does not find both", async () => {
    const { spec, calls } = backend(new Set(["a", "b"]), "all");
    const l = new AnyOfLookups(spec);
    l.exists(client, "a");
    l.exists(client, "b");
    await tick();
    expect(l.grouped).toBe(false);
    l.exists(client, "c");
    l.exists(client, "d");
    await tick();
    await Promise.all(["a", "x"].map((q) => l.find(client, q)));
    expect(calls.map((c) => c.kind)).toEqual(["many", "one", "one"]);
  });

  it("probes again later when the probe could not be sent", async () => {
    const { spec } = backend(new Set(["a", "b", "c"]), "any");
    let down = true;
    const l = new AnyOfLookups<string, string>({
      ...spec,
      many: (c, qs) => (down ? Promise.reject(new Error("backend down")) : spec.many(c, qs)),
    });
    l.exists(client, "a");
    l.exists(client, "b");
    await tick();
    expect(l.grouped).toBe(false);
    down = false;
    l.exists(client, "c");
    await tick();
    expect(l.grouped).toBe(true);
  });

  it("asks alone for what a full page may have left out", async () => {
    const existing = new Set(["a", "b", "c", "d"]);
    const { spec, calls } = backend(existing, "any", 2);
    const l = new AnyOfLookups(spec);
    l.exists(client, "a");
    l.exists(client, "b");
    await tick();
    calls.length = 0;
    const answers = await Promise.all(["a", "b", "c", "x"].map((q) => l.find(client, q)));
    expect(answers).toEqual(["id-a", "id-b", "id-c", undefined]);
    expect(calls).toEqual([
      { kind: "many", keys: ["a", "b", "c", "x"] },
      { kind: "one", keys: ["c"] },
      { kind: "one", keys: ["x"] },
    ]);
  });

  it("sizes a group's page with room for four matches per look-up, within the API's 500", () => {
    expect(groupPageSize(1)).toBe(10);
    expect(groupPageSize(40)).toBe(160);
    expect(groupPageSize(100)).toBe(400);
    expect(groupPageSize(200)).toBe(500);
  });
});
