import type { NewNode } from "../../core/log/tree-append.js";
import type { NodeCoord } from "../../formats/rfc9162/coords.js";
import type { Queryable } from "../drivers/db.js";

/** `level:idx`, the key of a stored perfect subtree in the maps this module returns. */
export const nodeKey = (level: number, idx: number) => `${level}:${idx}`;

/**
 * The tables of RFC 9162 trees' perfect subtrees: each tenancy's log, and its verifiable index's
 * output log (docs/complete-trails.md).
 */
export type TreeTable = "tlog_nodes" | "vindex_nodes";

/** The stored perfect subtrees at the given coordinates, keyed by `nodeKey`. */
export async function readTlogNodes(
  db: Queryable,
  tenantId: string,
  coords: NodeCoord[],
  table: TreeTable = "tlog_nodes",
): Promise<Map<string, Uint8Array>> {
  if (coords.length === 0) return new Map();
  const rows = await db.query<{ level: number; idx: number | string; hash: Uint8Array }>(
    `select n.level, n.idx, n.hash from ${table} n
     join unnest($2::smallint[], $3::bigint[]) as c(level, idx) on n.level = c.level and n.idx = c.idx
     where n.tenant_id = $1`,
    [tenantId, coords.map((c) => c.level), coords.map((c) => c.idx)],
  );
  return new Map(rows.map((r) => [nodeKey(Number(r.level), Number(r.idx)), new Uint8Array(r.hash)]));
}

/** The hashes at one level for indices [from, to), in order (tiles are such ranges). */
export async function readTlogLevel(
  db: Queryable,
  tenantId: string,
  level: number,
  from: number,
  to: number,
): Promise<Uint8Array[]> {
  const rows = await db.query<{ hash: Uint8Array }>(
    "select hash from tlog_nodes where tenant_id = $1 and level = $2 and idx >= $3 and idx < $4 order by idx",
    [tenantId, level, from, to],
  );
  return rows.map((r) => new Uint8Array(r.hash));
}

/** Appends new perfect subtrees in one statement. */
export async function insertTlogNodes(
  tx: Queryable,
  tenantId: string,
  nodes: NewNode[],
  table: TreeTable = "tlog_nodes",
): Promise<void> {
  if (nodes.length === 0) return;
  await tx.query(
    `insert into ${table} (tenant_id, level, idx, hash)
     select $1, * from unnest($2::smallint[], $3::bigint[], $4::bytea[])`,
    [tenantId, nodes.map((n) => n.level), nodes.map((n) => n.idx), nodes.map((n) => Buffer.from(n.hash))],
  );
}

/** How many entries the tenancy's RFC 9162 tree holds. */
export async function tlogSize(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db.query<{ tree_size: number | string }>(
    "select tree_size from logs where tenant_id = $1",
    [tenantId],
  );
  return Number(rows[0]?.tree_size ?? 0);
}

/** Logs whose tree holds fewer entries than their MMR: `leaves` is the MMR's, for the caller to compare. */
export async function logSizes(
  db: Queryable,
): Promise<Array<{ tenant_id: string; mmr_size: number; tree_size: number }>> {
  const rows = await db.query<{ tenant_id: string; mmr_size: number | string; tree_size: number | string }>(
    "select tenant_id, mmr_size, tree_size from logs",
  );
  return rows.map((r) => ({
    tenant_id: r.tenant_id,
    mmr_size: Number(r.mmr_size),
    tree_size: Number(r.tree_size),
  }));
}

export async function saveTlogSize(tx: Queryable, tenantId: string, size: number): Promise<void> {
  await tx.query("update logs set tree_size = $2 where tenant_id = $1", [tenantId, size]);
}

/**
 * What the tree's leaves are made from, for log entries at the given MMR indices (in that
 * order): each entry's MMR leaf and, for a registered statement, its payload (hex, as the
 * registration recorded it).
 */
export async function entriesForTree(
  tx: Queryable,
  tenantId: string,
  mmrIndices: number[],
): Promise<Array<{ mmr_index: number; leaf: Uint8Array; statement_payload: string | null }>> {
  const rows = await tx.query<{
    mmr_index: number | string;
    leaf: Uint8Array;
    statement_payload: string | null;
  }>(
    `select l.mmr_index, l.leaf,
       (select e.attributes->>'payload' from events e where e.id = l.record_id and e.statement is not null) as statement_payload
     from log_entries l where l.tenant_id = $1 and l.mmr_index = any($2::bigint[])`,
    [tenantId, mmrIndices],
  );
  const byIndex = new Map(rows.map((r) => [Number(r.mmr_index), r]));
  return mmrIndices.map((i) => {
    const r = byIndex.get(i);
    if (!r) throw new Error(`log ${tenantId} is missing the entry at ${i}`);
    return { mmr_index: i, leaf: new Uint8Array(r.leaf), statement_payload: r.statement_payload };
  });
}
