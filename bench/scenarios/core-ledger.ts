import { createHash } from "node:crypto";
import { IdTimestampGenerator } from "../../src/core/log/idtimestamp.js";
import { appendLeaves } from "../../src/core/log/mmr-append.js";
import {
  assetEventLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
} from "../../src/formats/record/leaf.js";
import { opsPerSecond } from "../micro.js";
import type { ScenarioContext } from "../scenario.js";
import { commitEntryRate } from "./core-commit.js";

/** Leaves appended per second to an in-memory MMR, in batches as the committer appends them. */
function mmrAppendRate(ms: number): number {
  const nodes: Uint8Array[] = [];
  let size = 0;
  const batch = Array.from({ length: 1000 }, (_, i) => createHash("sha256").update(String(i)).digest());
  const get = (i: number) => nodes[i] as Uint8Array;
  let leaves = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    const r = appendLeaves(size, batch, get);
    for (const n of r.nodes) nodes.push(n);
    size = r.newSize;
    leaves += batch.length;
  }
  return (leaves * 1000) / (performance.now() - start);
}

function sampleEvent() {
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

/** MMR append and leaf hashing rates of src/core. */
export async function benchLedger(ctx: ScenarioContext, mmrTarget: number): Promise<void> {
  const ms = ctx.opts.microMs;
  ctx.results.add("core", "MMR append (batches of 1000)", mmrAppendRate(ms), "leaves/s", {
    value: mmrTarget,
    label: "target",
  });
  const id = new IdTimestampGenerator(1).next();
  const event = sampleEvent();
  ctx.results.add(
    "core",
    "asset event leaf hash (bencode v3)",
    opsPerSecond(() => assetEventLeafHash(event, id), ms),
    "leaves/s",
  );
  const extra = assetFreeExtraBytes("7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  const free = { attributes: event.event_attributes, trails: ["vcon://x"] };
  ctx.results.add(
    "core",
    "asset-free event leaf hash (Go JSON)",
    opsPerSecond(() => assetFreeEventLeafHash(free, id, extra), ms),
    "leaves/s",
  );
  ctx.results.add(
    "core",
    "commit batch without a database (50 vCon events, node:crypto)",
    await commitEntryRate(ms),
    "entries/s",
  );
}
