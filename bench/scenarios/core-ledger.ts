import { createHash } from "node:crypto";
import { opsPerSecond } from "../micro.js";
import type { ScenarioContext } from "../scenario.js";
import { type Fn, fn, load, type Module } from "./load-module.js";

/** Leaves appended per second to an in-memory MMR, in batches as the committer appends them. */
function mmrAppendRate(appendLeaves: Fn, ms: number): number {
  const nodes: Uint8Array[] = [];
  let size = 0;
  const batch = Array.from({ length: 1000 }, (_, i) => createHash("sha256").update(String(i)).digest());
  const get = (i: unknown) => nodes[Number(i)] as Uint8Array;
  let leaves = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    const r = appendLeaves(size, batch, get) as { nodes: Uint8Array[]; newSize: number | bigint };
    for (const n of r.nodes) nodes.push(n);
    size = Number(r.newSize);
    leaves += batch.length;
  }
  return (leaves * 1000) / (performance.now() - start);
}

function sampleEvent(): Record<string, unknown> {
  const p = { issuer: "https://bench.example", subject: "bench", display_name: "", email: "" };
  const t = "2026-01-01T00:00:00Z";
  return {
    identity: "assets/6a0f1b9e-3c64-4a59-9d2e-4f5a7d1c2b3a/events/0c8b7a4e-1f2d-4e3c-8b9a-7d6e5f4c3b2a",
    asset_identity: "assets/6a0f1b9e-3c64-4a59-9d2e-4f5a7d1c2b3a",
    event_attributes: { arc_display_type: "vcon_created", payload: "a".repeat(64), subject: "vcon://x" },
    asset_attributes: {},
    operation: "Record",
    behaviour: "RecordEvidence",
    timestamp_declared: t,
    timestamp_accepted: t,
    timestamp_committed: t,
    principal_declared: p,
    principal_accepted: p,
    confirmation_status: "STORED",
    transaction_id: "",
    block_number: 0,
    transaction_index: 0,
    from: "",
    tenant_identity: "tenant/7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
    merklelog_entry: { commit: null, confirm: null, unequivocal: null },
  };
}

/** An idtimestamp as the committer makes one (the generator's constructor argument is its worker id). */
function idOf(ledgerId: Module | undefined): unknown {
  const Gen = ledgerId?.IdTimestampGenerator as (new (w: unknown) => { next(): unknown }) | undefined;
  if (!Gen) return undefined;
  for (const w of [1, 1n, new Uint8Array(2)]) {
    try {
      return new Gen(w).next();
    } catch {
      // try the next worker-id representation
    }
  }
  return undefined;
}

/** MMR append and leaf hashing rates, when src/core/mmr and src/core/ledger are built. */
export async function benchLedger(ctx: ScenarioContext, mmrTarget: number): Promise<void> {
  const ms = ctx.opts.microMs;
  const mmr = await load("../../src/core/mmr/index.js");
  const append = fn(mmr, "appendLeaves");
  if (!append) ctx.results.na("core", "MMR append", "src/core/mmr/index.ts (appendLeaves) not built yet");
  else {
    try {
      const rate = mmrAppendRate(append, ms);
      ctx.results.add("core", "MMR append (batches of 1000)", rate, "leaves/s", {
        value: mmrTarget,
        label: "target",
      });
    } catch (err) {
      ctx.results.na("core", "MMR append", `appendLeaves failed: ${(err as Error).message}`);
    }
  }
  const leaf = await load("../../src/core/record/leaf.js");
  const hashEvent = fn(leaf, "assetEventLeafHash");
  const id = idOf(await load("../../src/core/ledger/idtimestamp.js"));
  if (!hashEvent || id === undefined) {
    ctx.results.na("core", "leaf hashing", "src/core (record/leaf.ts, ledger/idtimestamp.ts) not built yet");
    return;
  }
  try {
    const event = sampleEvent();
    const rate = opsPerSecond(() => hashEvent(event, id), ms);
    ctx.results.add("core", "asset event leaf hash (bencode v3)", rate, "leaves/s");
    const hashFree = fn(leaf, "assetFreeEventLeafHash");
    const extra = fn(leaf, "assetFreeExtraBytes")?.("7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
    if (hashFree && extra) {
      const free = { attributes: event.event_attributes, trails: ["vcon://x"] };
      const freeRate = opsPerSecond(() => hashFree(free, id, extra), ms);
      ctx.results.add("core", "asset-free event leaf hash (Go JSON)", freeRate, "leaves/s");
    }
  } catch (err) {
    ctx.results.na("core", "leaf hashing", `leaf hash failed: ${(err as Error).message}`);
  }
}
