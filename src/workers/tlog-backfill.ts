import { tlogLeafData } from "../formats/ledger/tlog-leaf.js";
import { leafCount, mmrIndexOfLeaf } from "../formats/mmr/indices.js";
import type { Queryable } from "../store/drivers/db.js";
import { loadLog, tryLockLog } from "../store/ledger/ledger.js";
import { entriesForTree, logSizes, saveTlogSize } from "../store/ledger/tlog-nodes.js";
import { appendToTree } from "./tlog-append.js";

/** Tenancies whose RFC 9162 tree holds fewer entries than their MMR (logs older than the tree). */
export async function logsBehind(db: Queryable): Promise<string[]> {
  return (await logSizes(db)).filter((l) => l.tree_size < leafCount(l.mmr_size)).map((l) => l.tenant_id);
}

/**
 * Appends up to `limit` of the log's entries the tree lacks, in leaf order, in one transaction
 * under the log's lock (so it never interleaves with a commit; the committer appends to the
 * tree only once it has caught up). Returns how many; `busy` when another holds the lock.
 */
export async function backfillTree(
  tx: Queryable,
  tenantId: string,
  limit: number,
): Promise<{ count: number; busy?: true }> {
  if (!(await tryLockLog(tx, tenantId))) return { count: 0, busy: true };
  const log = await loadLog(tx, tenantId);
  const end = Math.min(leafCount(log.mmr_size), log.tree_size + limit);
  if (end <= log.tree_size) return { count: 0 };
  const indices = Array.from({ length: end - log.tree_size }, (_, k) => mmrIndexOfLeaf(log.tree_size + k));
  const entries = await entriesForTree(tx, tenantId, indices);
  const size = await appendToTree(
    tx,
    tenantId,
    log.tree_size,
    entries.map((e) =>
      tlogLeafData({
        mmrLeaf: e.leaf,
        statementPayload:
          e.statement_payload === null ? undefined : new Uint8Array(Buffer.from(e.statement_payload, "hex")),
      }),
    ),
  );
  await saveTlogSize(tx, tenantId, size);
  return { count: size - log.tree_size };
}
