import { mmrIndexOfLeaf } from "../core/mmr/index.js";
import { type PerfectHash, perfectHashesRead } from "../core/tlog/tree.js";
import type { Queryable } from "./db.js";

/**
 * Reads of the RFC 9162 tree's perfect-subtree hashes (`tlog_nodes`, written by the committer)
 * and of the leaves' entries, as tiles and proofs need them.
 */

/** `count` consecutive hashes of tree level `level` from `first`, in order (fewer when missing). */
export async function nodeRun(
  db: Queryable,
  tenantId: string,
  level: number,
  first: number,
  count: number,
): Promise<Uint8Array[]> {
  const rows = await db.query<{ hash: Uint8Array }>(
    "select hash from tlog_nodes where tenant_id = $1 and level = $2 and idx >= $3 and idx < $4 order by idx",
    [tenantId, level, first, first + count],
  );
  return rows.map((r) => new Uint8Array(r.hash));
}

/** The hashes of the given perfect subtrees, keyed `level/idx`. */
export async function nodesAt(
  db: Queryable,
  tenantId: string,
  at: Array<[number, number]>,
): Promise<Map<string, Uint8Array>> {
  if (at.length === 0) return new Map();
  const rows = await db.query<{ level: number; idx: number; hash: Uint8Array }>(
    `select n.level, n.idx, n.hash from tlog_nodes n
     join unnest($2::smallint[], $3::bigint[]) as w(level, idx) on n.level = w.level and n.idx = w.idx
     where n.tenant_id = $1`,
    [tenantId, at.map((a) => a[0]), at.map((a) => a[1])],
  );
  return new Map(rows.map((r) => [`${Number(r.level)}/${Number(r.idx)}`, new Uint8Array(r.hash)]));
}

/** The log entries (the RFC 9162 leaves' data) of leaves [first, first + count), in order. */
export async function leafEntries(
  db: Queryable,
  tenantId: string,
  first: number,
  count: number,
): Promise<Uint8Array[]> {
  if (count <= 0) return [];
  // The primary key orders entries by MMR index, which grows with the leaf index.
  const rows = await db.query<{ leaf: Uint8Array }>(
    "select leaf from log_entries where tenant_id = $1 and mmr_index >= $2 and mmr_index <= $3 order by mmr_index",
    [tenantId, mmrIndexOfLeaf(first), mmrIndexOfLeaf(first + count - 1)],
  );
  return rows.map((r) => new Uint8Array(r.leaf));
}

/**
 * Runs a tree computation (a root, a proof) over the stored perfect subtrees: reads the ones it
 * needs in one statement, then runs it; throws when the tree lacks one (it is not built that far).
 */
export async function withNodes<T>(
  db: Queryable,
  tenantId: string,
  run: (get: PerfectHash) => T,
): Promise<T> {
  const nodes = await nodesAt(db, tenantId, perfectHashesRead(run));
  return run((level, index) => {
    const h = nodes.get(`${level}/${index}`);
    if (!h) throw new Error(`log ${tenantId} has no tree node ${level}/${index}`);
    return h;
  });
}
