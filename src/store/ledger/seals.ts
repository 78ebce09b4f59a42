import type { Queryable } from "../drivers/db.js";
import { numbersOf } from "../query/sql.js";

export interface SealRow {
  tenant_id: string;
  mmr_size: number;
  seal: Uint8Array;
  peaks: string[];
  timestamp_ms: number;
  idtimestamp: string;
  anchored_block: number | null;
}

const norm = (r: SealRow): SealRow => ({
  ...r,
  mmr_size: Number(r.mmr_size),
  timestamp_ms: Number(r.timestamp_ms),
  anchored_block: r.anchored_block === null ? null : Number(r.anchored_block),
  seal: new Uint8Array(r.seal),
});

export async function insertSeal(tx: Queryable, s: Omit<SealRow, "anchored_block">): Promise<void> {
  await tx.query(
    "insert into seals (tenant_id, mmr_size, seal, peaks, timestamp_ms, idtimestamp) values ($1, $2, $3, $4::jsonb, $5, $6)",
    [s.tenant_id, s.mmr_size, Buffer.from(s.seal), JSON.stringify(s.peaks), s.timestamp_ms, s.idtimestamp],
  );
  await tx.query("update logs set sealed_size = $2 where tenant_id = $1", [s.tenant_id, s.mmr_size]);
}

/** The latest seal, or the one of exactly `mmrSize`. */
export async function getSeal(
  db: Queryable,
  tenantId: string,
  mmrSize?: number,
): Promise<SealRow | undefined> {
  const rows = await db.query<SealRow>(
    mmrSize === undefined
      ? "select * from seals where tenant_id = $1 order by mmr_size desc limit 1"
      : "select * from seals where tenant_id = $1 and mmr_size = $2",
    mmrSize === undefined ? [tenantId] : [tenantId, mmrSize],
  );
  return rows[0] && norm(rows[0]);
}

export async function unanchoredSeals(db: Queryable): Promise<SealRow[]> {
  return (
    await db.query<SealRow>("select * from seals where anchored_block is null order by tenant_id, mmr_size")
  ).map(norm);
}

/** Logs that have committed leaves past their last seal. */
export async function logsToSeal(
  db: Queryable,
): Promise<Array<{ tenant_id: string; mmr_size: number; sealed_size: number; last_idtimestamp: string }>> {
  const rows = await db.query<{
    tenant_id: string;
    mmr_size: number;
    sealed_size: number;
    last_idtimestamp: string;
  }>("select tenant_id, mmr_size, sealed_size, last_idtimestamp from logs where mmr_size > sealed_size");
  return rows.map((r) => ({ ...r, mmr_size: Number(r.mmr_size), sealed_size: Number(r.sealed_size) }));
}

/** Sizes of every seal of a log, oldest first. */
export async function listSealSizes(db: Queryable, tenantId: string): Promise<number[]> {
  return numbersOf(db, "mmr_size", "select mmr_size from seals where tenant_id = $1 order by mmr_size", [
    tenantId,
  ]);
}

/** Records the block (and its transaction) that anchors a seal. */
export async function markSealAnchored(
  tx: Queryable,
  tenantId: string,
  mmrSize: number,
  at: { blockNumber: number; blockHash: string; transactionHash: string; transactionIndex: number },
): Promise<void> {
  await tx.query(
    `update seals set anchored_block = $3, anchor_block_hash = $4, anchor_tx_hash = $5, anchor_tx_index = $6
       where tenant_id = $1 and mmr_size = $2`,
    [tenantId, mmrSize, at.blockNumber, at.blockHash, at.transactionHash, at.transactionIndex],
  );
}

/** Every log that has been sealed, with its latest seal's size. */
export async function sealedLogs(db: Queryable): Promise<Array<{ tenant_id: string; sealed_size: number }>> {
  const rows = await db.query<{ tenant_id: string; sealed_size: number }>(
    "select tenant_id, sealed_size from logs where sealed_size > 0 order by tenant_id",
  );
  return rows.map((r) => ({ tenant_id: r.tenant_id, sealed_size: Number(r.sealed_size) }));
}
