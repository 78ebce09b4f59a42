import { appendLeafHashes, appendNodesNeeded, type NewNode } from "../core/log/tree-append.js";
import { nodeSha256 } from "../core/node/crypto.js";
import { leafHash } from "../formats/rfc9162/hash.js";
import type { Queryable } from "../store/drivers/db.js";
import { insertTlogNodes, nodeKey, readTlogNodes } from "../store/ledger/tlog-nodes.js";

/** The stored subtrees an append to the tenancy's tree of `size` leaves reads (its frontier). */
export function readTreeFrontier(
  tx: Queryable,
  tenantId: string,
  size: number,
): Promise<Map<string, Uint8Array>> {
  return readTlogNodes(tx, tenantId, appendNodesNeeded(size));
}

/**
 * The perfect subtrees that entries' leaf data complete when appended to the tenancy's RFC 9162
 * tree of `size` leaves, from its frontier (`known`, by `nodeKey`). Writes nothing: the committer
 * writes them with the rest of its batch (`writeCommit`).
 */
export function treeNodesAfter(
  tenantId: string,
  size: number,
  leafData: Uint8Array[],
  known: ReadonlyMap<string, Uint8Array>,
): NewNode[] {
  if (leafData.length === 0) return [];
  return appendLeafHashes(
    size,
    leafData.map((d) => leafHash(d, nodeSha256)),
    (level, idx) => {
      const h = known.get(nodeKey(level, idx));
      if (!h) throw new Error(`tree of log ${tenantId} is missing node ${level}/${idx}`);
      return h;
    },
    nodeSha256,
  );
}

/**
 * Appends entries' leaf data to the tenancy's RFC 9162 tree of `size` leaves and writes the
 * subtrees they complete (the backfill's way). Returns the new size; the caller records it.
 */
export async function appendToTree(
  tx: Queryable,
  tenantId: string,
  size: number,
  leafData: Uint8Array[],
): Promise<number> {
  const known = await readTreeFrontier(tx, tenantId, size);
  await insertTlogNodes(tx, tenantId, treeNodesAfter(tenantId, size, leafData, known));
  return size + leafData.length;
}
