import { nodeSha256 } from "../core/node/crypto.js";
import { appendLeafHashes, appendNodesNeeded, leafHash, type NewNode } from "../core/rfc9162/index.js";
import type { Queryable } from "../store/db.js";
import { insertTlogNodes, nodeKey, readTlogNodes } from "../store/tlog-nodes.js";

/**
 * The perfect subtrees that entries' leaf data complete when appended to the tenancy's RFC 9162
 * tree of `size` leaves (the caller holds the log's lock): reads the tree's frontier and hashes,
 * writes nothing. The committer writes them with the rest of its batch (`writeCommit`).
 */
export async function treeNodesFor(
  tx: Queryable,
  tenantId: string,
  size: number,
  leafData: Uint8Array[],
): Promise<NewNode[]> {
  if (leafData.length === 0) return [];
  const known = await readTlogNodes(tx, tenantId, appendNodesNeeded(size));
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
  await insertTlogNodes(tx, tenantId, await treeNodesFor(tx, tenantId, size, leafData));
  return size + leafData.length;
}
