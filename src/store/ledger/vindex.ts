import { mmrIndexOfLeaf } from "../../formats/mmr/indices.js";
import type { Queryable } from "../drivers/db.js";

/** What the map function reads of one log entry (docs/complete-trails.md, "The map function"). */
export interface IndexFacts {
  leaf_index: number;
  kind: "asset_event" | "event" | "period";
  /** An asset event's asset. */
  asset_id: string | null;
  /** The signed attributes' `subject` when it is a string. */
  subject: string | null;
  /** An asset-free event's signed `scitt_issuer` when it is a string (a registered statement). */
  issuer: string | null;
}

/**
 * The facts of the log entries [from, to) in log order. Each record's attributes are the ones its
 * leaf signs: an asset event's `event_attributes`, an asset-free event's `attributes`.
 */
export async function indexFactsBetween(
  db: Queryable,
  tenantId: string,
  from: number,
  to: number,
): Promise<IndexFacts[]> {
  if (to <= from) return [];
  const rows = await db.query<{
    leaf_index: number | string;
    kind: IndexFacts["kind"];
    asset_id: string | null;
    subject: string | null;
    issuer: string | null;
  }>(
    `select l.leaf_index, l.kind, a.asset_id,
       case when l.kind = 'asset_event'
            then case when jsonb_typeof(a.event_attributes -> 'subject') = 'string' then a.event_attributes ->> 'subject' end
            else case when jsonb_typeof(e.attributes -> 'subject') = 'string' then e.attributes ->> 'subject' end
       end as subject,
       case when jsonb_typeof(e.attributes -> 'scitt_issuer') = 'string' then e.attributes ->> 'scitt_issuer' end as issuer
     from log_entries l
     left join asset_events a on l.kind = 'asset_event' and a.tenant_id = $1 and a.id = l.record_id
     left join events e on l.kind = 'event' and e.tenant_id = $1 and e.id = l.record_id
     where l.tenant_id = $1 and l.mmr_index >= $2 and l.mmr_index <= $3
     order by l.mmr_index`,
    [tenantId, mmrIndexOfLeaf(from), mmrIndexOfLeaf(to - 1)],
  );
  const facts = rows.map((r) => ({ ...r, leaf_index: Number(r.leaf_index) }));
  if (facts.length !== to - from || facts.some((f, k) => f.leaf_index !== from + k))
    throw new Error(`log ${tenantId} is missing entries between ${from} and ${to} for its index`);
  return facts;
}

/** A revision of the index: the output log's entry at `seq`, binding an index root to a log checkpoint. */
export interface RevisionRow {
  tenant_id: string;
  seq: number;
  log_size: number;
  log_root: Uint8Array;
  index_root: Uint8Array;
  /** The VRF public key the positions were made with (signed with the rest of the revision). */
  vrf_key: Uint8Array;
}

const REVISION_COLUMNS = "tenant_id, seq, log_size, log_root, index_root, vrf_key";

const revision = (r: RevisionRow): RevisionRow => ({
  tenant_id: r.tenant_id,
  seq: Number(r.seq),
  log_size: Number(r.log_size),
  log_root: new Uint8Array(r.log_root),
  index_root: new Uint8Array(r.index_root),
  vrf_key: new Uint8Array(r.vrf_key),
});

export async function insertRevision(tx: Queryable, r: RevisionRow): Promise<void> {
  await tx.query(`insert into vindex_revisions (${REVISION_COLUMNS}) values ($1, $2, $3, $4, $5, $6)`, [
    r.tenant_id,
    r.seq,
    r.log_size,
    Buffer.from(r.log_root),
    Buffer.from(r.index_root),
    Buffer.from(r.vrf_key),
  ]);
}

/** The newest revision, or undefined before the first. */
export async function latestRevision(db: Queryable, tenantId: string): Promise<RevisionRow | undefined> {
  const rows = await db.query<RevisionRow>(
    `select ${REVISION_COLUMNS} from vindex_revisions where tenant_id = $1 order by seq desc limit 1`,
    [tenantId],
  );
  return rows[0] && revision(rows[0]);
}

/** Revisions [from, to) of the output log, in order. */
export async function revisionsBetween(
  db: Queryable,
  tenantId: string,
  from: number,
  to: number,
): Promise<RevisionRow[]> {
  const rows = await db.query<RevisionRow>(
    `select ${REVISION_COLUMNS} from vindex_revisions where tenant_id = $1 and seq >= $2 and seq < $3 order by seq`,
    [tenantId, from, to],
  );
  return rows.map(revision);
}

/** A signed note of the output log at `size` revisions. */
export interface IndexCheckpointRow {
  tenant_id: string;
  size: number;
  root: Uint8Array;
  note: string;
}

export async function insertIndexCheckpoint(tx: Queryable, c: IndexCheckpointRow): Promise<void> {
  await tx.query("insert into vindex_checkpoints (tenant_id, size, root, note) values ($1, $2, $3, $4)", [
    c.tenant_id,
    c.size,
    Buffer.from(c.root),
    c.note,
  ]);
}

/** The newest output checkpoint, or the one at `size`. */
export async function indexCheckpoint(
  db: Queryable,
  tenantId: string,
  size?: number,
): Promise<IndexCheckpointRow | undefined> {
  const rows = await db.query<IndexCheckpointRow>(
    size === undefined
      ? "select tenant_id, size, root, note from vindex_checkpoints where tenant_id = $1 order by size desc limit 1"
      : "select tenant_id, size, root, note from vindex_checkpoints where tenant_id = $1 and size = $2",
    size === undefined ? [tenantId] : [tenantId, size],
  );
  const r = rows[0];
  return r && { tenant_id: r.tenant_id, size: Number(r.size), root: new Uint8Array(r.root), note: r.note };
}

/** The records at log entries (by leaf index), as `log_entries` names them, in the order asked. */
export async function recordsAtEntries(
  db: Queryable,
  tenantId: string,
  leafIndices: readonly number[],
): Promise<Array<string | undefined>> {
  if (leafIndices.length === 0) return [];
  const rows = await db.query<{ leaf_index: number | string; record_id: string }>(
    "select leaf_index, record_id from log_entries where tenant_id = $1 and mmr_index = any($2::bigint[])",
    [tenantId, leafIndices.map(mmrIndexOfLeaf)],
  );
  const by = new Map(rows.map((r) => [Number(r.leaf_index), r.record_id]));
  return leafIndices.map((i) => by.get(i));
}

/**
 * The logs whose index's newest revision is behind their newest checkpoint (a revision refused or
 * failed, or a log older than the index): each probed by its keys, not by reading the tables.
 */
export async function logsWithIndexBehind(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ tenant_id: string }>(
    `select l.tenant_id from logs l
     cross join lateral (select size from tlog_checkpoints c where c.tenant_id = l.tenant_id order by size desc limit 1) c
     left join lateral (select log_size from vindex_revisions r where r.tenant_id = l.tenant_id order by seq desc limit 1) r on true
     where coalesce(r.log_size, 0) < c.size`,
  );
  return rows.map((r) => r.tenant_id);
}

/** Each log's newest output checkpoint that some of the witnesses have not cosigned. */
export async function indexCheckpointsToWitness(
  db: Queryable,
  witnesses: string[],
): Promise<IndexCheckpointRow[]> {
  if (witnesses.length === 0) return [];
  const rows = await db.query<IndexCheckpointRow>(
    `select c.tenant_id, c.size, c.root, c.note from logs l cross join lateral (
       select tenant_id, size, root, note from vindex_checkpoints t where t.tenant_id = l.tenant_id
       order by t.size desc limit 1) c
     where (select count(*) from vindex_cosignatures s
            where s.tenant_id = c.tenant_id and s.size = c.size and s.witness = any($1::text[])) < $2`,
    [witnesses, witnesses.length],
  );
  return rows.map((r) => ({ ...r, size: Number(r.size), root: new Uint8Array(r.root) }));
}
