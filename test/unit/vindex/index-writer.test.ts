import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Queryable } from "../../../src/store/drivers/db.js";
import type { IndexStates } from "../../../src/vindex/index-states.js";
import { IndexWriter, revisionIntervalMs } from "../../../src/vindex/index-writer.js";
import type { IndexPositions } from "../../../src/vindex/positions.js";
import { TenantIndex } from "../../../src/vindex/tenant-index.js";

// The writer's cadence: a seal revises a busy log's index at most once an interval, and the
// indexer's `revise` always. Each revision asks the index's state first, so the states' reads
// count the revisions tried; the index is already at the head here, so none goes further.
function writer(intervalMs: number) {
  const asked: string[] = [];
  const states = {
    current: async (_tx: Queryable, tenantId: string) => {
      asked.push(tenantId);
      return { index: new TenantIndex(10, 1), revision: undefined, outputRoot: undefined };
    },
    forget: () => undefined,
  } as unknown as IndexStates;
  const w = new IndexWriter(
    { states, positions: {} as IndexPositions },
    pino({ level: "silent" }),
    intervalMs,
  );
  const tx: Queryable = { query: async () => [] };
  const head = { origin: "o/tlog", size: 10, root: new Uint8Array(32) };
  const keys = {} as Parameters<IndexWriter["atSeal"]>[3];
  return {
    asked,
    seal: (t: string) => w.atSeal(tx, t, head, keys, undefined),
    revise: (t: string) => w.revise(tx, t, head, keys, undefined),
  };
}

describe("IndexWriter's cadence", () => {
  it("revises at a seal once an interval per log, and at the indexer's call whenever", async () => {
    const w = writer(60_000);
    await w.seal("a");
    await w.seal("a");
    await w.seal("b");
    expect(w.asked).toEqual(["a", "b"]);
    await w.revise("a");
    expect(w.asked).toEqual(["a", "b", "a"]);
  });

  it("revises at every seal with no interval", async () => {
    const w = writer(0);
    await w.seal("a");
    await w.seal("a");
    expect(w.asked).toEqual(["a", "a"]);
  });

  it("is the indexer's period: five seals, at least a second", () => {
    expect(revisionIntervalMs(1000)).toBe(5000);
    expect(revisionIntervalMs(100)).toBe(1000);
  });
});
