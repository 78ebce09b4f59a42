import { createHash } from "node:crypto";
import { buildBlock, type ChainTransaction, GENESIS_PARENT } from "../core/chain/block.js";
import { isoTime } from "../formats/ids.js";
import { simpleHashAnchor } from "../formats/ledger/simplehash.js";
import { assetEventRecord } from "../formats/record/asset-event.js";
import type { Queryable } from "../store/drivers/db.js";
import { headBlock, insertBlock, tryLockChain } from "../store/ledger/chain.js";
import { markSealAnchored, type SealRow, unanchoredSeals } from "../store/ledger/seals.js";
import {
  type AssetEventRow,
  confirmSimpleHashEvents,
  lockUnanchoredSimpleHashEvents,
} from "../store/records/asset-events.js";
import { markSimpleHashConfirmed } from "../store/records/assets.js";

interface Window {
  tenant: string;
  events: AssetEventRow[];
  start: Date;
  end: Date;
  anchor: string;
}

/** SIMPLE_HASH events accepted since the last window, per tenancy, in SIMPLEHASHV1 (acceptance) order. */
async function simpleHashWindows(tx: Queryable, end: Date): Promise<Window[]> {
  const rows = await lockUnanchoredSimpleHashEvents(tx, end);
  const byTenant = new Map<string, AssetEventRow[]>();
  for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r]);
  return [...byTenant.entries()].map(([tenant, events]) => ({
    tenant,
    events,
    start: (events[0] as AssetEventRow).timestamp_accepted,
    end,
    anchor: simpleHashAnchor(
      events.map((e) => assetEventRecord(e)),
      3,
    ),
  }));
}

function sealTx(s: SealRow): ChainTransaction {
  return {
    kind: "MERKLE_LOG_SEAL",
    tenant: `tenant/${s.tenant_id}`,
    anchor: createHash("sha256").update(s.seal).digest("hex"),
    details: { mmr_size: s.mmr_size, idtimestamp: s.idtimestamp },
  };
}

function windowTx(w: Window): ChainTransaction {
  const query = `/archivist/v2/assets/-/events?proof_mechanism=SIMPLE_HASH&order_by=SIMPLEHASHV1&timestamp_accepted_since=${isoTime(w.start)}&timestamp_accepted_before=${isoTime(w.end)}`;
  return {
    kind: "SIMPLE_HASH",
    tenant: `tenant/${w.tenant}`,
    anchor: w.anchor,
    details: {
      api_query: query,
      start_time: isoTime(w.start),
      end_time: isoTime(w.end),
      hash_schema_version: 3,
      event_count: w.events.length,
    },
  };
}

/**
 * Makes the next block of the archivist node chain from every unanchored seal and
 * simple-hash window (no empty blocks), then moves what it covers on: the seals are marked
 * anchored (their MERKLE_LOG records read as UNEQUIVOCAL), the window's SIMPLE_HASH events
 * become CONFIRMED.
 */
export async function anchorOnce(
  tx: Queryable,
  miner: string,
  now = new Date(),
): Promise<number | undefined> {
  if (!(await tryLockChain(tx))) return undefined;
  const seals = await unanchoredSeals(tx);
  const windows = await simpleHashWindows(tx, now);
  if (seals.length === 0 && windows.length === 0) return undefined;
  const head = await headBlock(tx);
  const number = head ? Number.parseInt(head.number, 16) + 1 : 0;
  const block = buildBlock({
    number,
    parentHash: head?.hash ?? GENESIS_PARENT,
    timestampMs: now.getTime(),
    miner,
    transactions: [...seals.map(sealTx), ...windows.map(windowTx)],
  });
  await insertBlock(tx, block, now.getTime());
  // A seal's anchoring goes on the seal: its records are UNEQUIVOCAL from it when read.
  for (const [i, s] of seals.entries()) {
    await markSealAnchored(tx, s.tenant_id, s.mmr_size, {
      blockNumber: number,
      blockHash: block.hash,
      transactionHash: block.transactions[i]?.hash ?? "",
      transactionIndex: i,
    });
  }
  const assets: string[] = [];
  for (const [k, w] of windows.entries()) {
    const i = seals.length + k;
    await confirmSimpleHashEvents(
      tx,
      w.events.map((e) => e.id),
      { blockNumber: number, transactionHash: block.transactions[i]?.hash ?? "", transactionIndex: i },
    );
    assets.push(...w.events.map((e) => e.asset_id));
  }
  await markSimpleHashConfirmed(tx, [...new Set(assets)]);
  return number;
}
