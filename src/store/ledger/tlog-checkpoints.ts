import type { Queryable } from "../drivers/db.js";

/** The key store purpose of the service's Ed25519 log key (checkpoints are signed with it). */
export const TLOG_KEY = "tlog";
/** The purpose of the log's ML-DSA-44 checkpoint key (a seed), signing beside the Ed25519 one. */
export const TLOG_ML_DSA_KEY = "tlog-ml-dsa-44";

/** A stored checkpoint: the log-signed note of the tenancy's RFC 9162 tree at `size` leaves. */
export interface CheckpointRow {
  tenant_id: string;
  size: number;
  /** The MMR size of the seal it was made at. */
  mmr_size: number;
  origin: string;
  root: Uint8Array;
  note: string;
  witnessed: boolean;
}

export interface CosignatureRow {
  witness: string;
  signature_line: string;
  timestamp_s: number;
}

const norm = (r: CheckpointRow): CheckpointRow => ({
  ...r,
  size: Number(r.size),
  mmr_size: Number(r.mmr_size),
  root: new Uint8Array(r.root),
});

const COLUMNS = "tenant_id, size, mmr_size, origin, root, note, witnessed";

/** Stores a checkpoint (a re-run of the same seal keeps the first). */
export async function insertCheckpoint(tx: Queryable, c: CheckpointRow): Promise<void> {
  await tx.query(
    `insert into tlog_checkpoints (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
    [c.tenant_id, c.size, c.mmr_size, c.origin, Buffer.from(c.root), c.note, c.witnessed],
  );
}

/** A seal made while witnesses are configured waits for their quorum before its records are UNEQUIVOCAL. */
export async function markSealUnwitnessed(tx: Queryable, tenantId: string, mmrSize: number): Promise<void> {
  await tx.query("update seals set witnessed = false where tenant_id = $1 and mmr_size = $2", [
    tenantId,
    mmrSize,
  ]);
}

/** The newest checkpoint (the largest tree). */
export async function latestCheckpoint(db: Queryable, tenantId: string): Promise<CheckpointRow | undefined> {
  const rows = await db.query<CheckpointRow>(
    `select ${COLUMNS} from tlog_checkpoints where tenant_id = $1 order by size desc limit 1`,
    [tenantId],
  );
  return rows[0] && norm(rows[0]);
}

/** The checkpoint to publish: the newest one a quorum of witnesses cosigned, else the newest. */
export async function publishedCheckpoint(
  db: Queryable,
  tenantId: string,
): Promise<CheckpointRow | undefined> {
  const newest = await latestCheckpoint(db, tenantId);
  if (!newest || newest.witnessed) return newest;
  const rows = await db.query<CheckpointRow>(
    `select ${COLUMNS} from tlog_checkpoints where tenant_id = $1 and witnessed order by size desc limit 1`,
    [tenantId],
  );
  return rows[0] ? norm(rows[0]) : newest;
}

/** The origin a tenancy's log was first published under (origins never change). */
export async function originOf(db: Queryable, tenantId: string): Promise<string | undefined> {
  const rows = await db.query<{ origin: string }>(
    "select origin from tlog_checkpoints where tenant_id = $1 order by size limit 1",
    [tenantId],
  );
  return rows[0]?.origin;
}

/**
 * The logs witnesses cosign: each tenancy's log (`tlog`), and its verifiable index's output log
 * (`vindex`, docs/complete-trails.md), each with its own cosignatures and witness sizes.
 */
export type WitnessedLog = "tlog" | "vindex";

export async function cosignaturesOf(
  db: Queryable,
  tenantId: string,
  size: number,
  log: WitnessedLog = "tlog",
): Promise<CosignatureRow[]> {
  const rows = await db.query<CosignatureRow>(
    `select witness, signature_line, timestamp_s from ${log}_cosignatures where tenant_id = $1 and size = $2 order by witness`,
    [tenantId, size],
  );
  return rows.map((r) => ({ ...r, timestamp_s: Number(r.timestamp_s) }));
}

/** Records a witness's cosignature and that it has now seen `size`. */
export async function insertCosignature(
  db: Queryable,
  tenantId: string,
  size: number,
  c: CosignatureRow,
  log: WitnessedLog = "tlog",
): Promise<void> {
  await db.query(
    `insert into ${log}_cosignatures (tenant_id, size, witness, signature_line, timestamp_s) values ($1, $2, $3, $4, $5)
     on conflict (tenant_id, size, witness) do update set signature_line = excluded.signature_line, timestamp_s = excluded.timestamp_s`,
    [tenantId, size, c.witness, c.signature_line, c.timestamp_s],
  );
  await setWitnessSize(db, tenantId, c.witness, size, log);
}

/** The size a witness last cosigned for this log, as far as we know. */
export async function witnessSize(
  db: Queryable,
  tenantId: string,
  witness: string,
  log: WitnessedLog = "tlog",
): Promise<number> {
  const rows = await db.query<{ size: number }>(
    `select size from ${log}_witness_sizes where tenant_id = $1 and witness = $2`,
    [tenantId, witness],
  );
  return rows[0] ? Number(rows[0].size) : 0;
}

export async function setWitnessSize(
  db: Queryable,
  tenantId: string,
  witness: string,
  size: number,
  log: WitnessedLog = "tlog",
): Promise<void> {
  await db.query(
    `insert into ${log}_witness_sizes (tenant_id, witness, size) values ($1, $2, $3)
     on conflict (tenant_id, witness) do update set size = excluded.size`,
    [tenantId, witness, size],
  );
}

/**
 * Marks the checkpoint witnessed, with every earlier one and every seal up to its MMR size: a
 * quorum cosigning a tree vouches for each prefix of it, since each witness checked consistency.
 */
export async function markWitnessed(
  db: Queryable,
  tenantId: string,
  size: number,
  mmrSize: number,
): Promise<void> {
  await db.query(
    "update tlog_checkpoints set witnessed = true where tenant_id = $1 and size <= $2 and not witnessed",
    [tenantId, size],
  );
  await db.query(
    "update seals set witnessed = true where tenant_id = $1 and mmr_size <= $2 and not witnessed",
    [tenantId, mmrSize],
  );
}

/** Each log's newest checkpoint, where some witness has not cosigned it or it is not marked witnessed yet. */
export async function checkpointsToWitness(db: Queryable, witnesses: string[]): Promise<CheckpointRow[]> {
  if (witnesses.length === 0) return [];
  // One backward probe of each log's checkpoints (a distinct over all of them read every row).
  // A closed log period's final checkpoint goes first (docs/scaling.md, "Log periods"): the close
  // makes a newer one at once, and a witness cosigns only forward, so the final one is submitted
  // before it while no witness has gone past it; then the newest, as for every log.
  const rows = await db.query<CheckpointRow>(
    `select c.* from logs l cross join lateral (
       (select ${COLUMNS.split(", ")
         .map((c) => `t.${c}`)
         .join(", ")} from log_periods p
          join tlog_checkpoints t on t.tenant_id = p.tenant_id and t.size = p.end_size
        where p.tenant_id = l.tenant_id
          and (select count(*) from tlog_cosignatures s
               where s.tenant_id = t.tenant_id and s.size = t.size and s.witness = any($1::text[])) < $2
          and not exists (select 1 from tlog_witness_sizes w
               where w.tenant_id = t.tenant_id and w.witness = any($1::text[]) and w.size > t.size)
        order by t.size limit 1)
       union all
       (select ${COLUMNS} from tlog_checkpoints t where t.tenant_id = l.tenant_id order by t.size desc limit 1)
       limit 1
     ) c
     where not c.witnessed or (select count(*) from tlog_cosignatures s
            where s.tenant_id = c.tenant_id and s.size = c.size and s.witness = any($1::text[])) < $2`,
    [witnesses, witnesses.length],
  );
  return rows.map(norm);
}

/** Each named witness's newest cosignature of this log (a witness that never cosigned is left out). */
export async function lastCosignatures(
  db: Queryable,
  tenantId: string,
  witnesses: string[],
): Promise<Array<{ witness: string; size: number; timestamp_s: number }>> {
  if (witnesses.length === 0) return [];
  // One backward probe of the primary key per witness: the newest sizes are the last entries.
  const rows = await db.query<{ witness: string; size: number; timestamp_s: number }>(
    `select w.witness, c.size, c.timestamp_s from unnest($2::text[]) as w(witness) cross join lateral (
       select size, timestamp_s from tlog_cosignatures t where t.tenant_id = $1 and t.witness = w.witness
       order by t.size desc limit 1) c`,
    [tenantId, witnesses],
  );
  return rows.map((r) => ({ witness: r.witness, size: Number(r.size), timestamp_s: Number(r.timestamp_s) }));
}

/** The checkpoint at exactly `size` entries, if one was made. */
export async function checkpointAt(
  db: Queryable,
  tenantId: string,
  size: number,
): Promise<CheckpointRow | undefined> {
  const rows = await db.query<CheckpointRow>(
    `select ${COLUMNS} from tlog_checkpoints where tenant_id = $1 and size = $2`,
    [tenantId, size],
  );
  return rows[0] && norm(rows[0]);
}

/**
 * The checkpoint an index that holds `above` entries catches up to, at most `atMost` of them: the
 * largest above `above` and within `atMost`, else the smallest above `above`.
 */
export async function checkpointToCatchUp(
  db: Queryable,
  tenantId: string,
  above: number,
  atMost: number,
): Promise<CheckpointRow | undefined> {
  const rows = await db.query<CheckpointRow>(
    `(select ${COLUMNS} from tlog_checkpoints where tenant_id = $1 and size > $2 and size <= $3 order by size desc limit 1)
     union all
     (select ${COLUMNS} from tlog_checkpoints where tenant_id = $1 and size > $2 order by size limit 1)`,
    [tenantId, above, atMost],
  );
  return rows[0] && norm(rows[0]);
}
