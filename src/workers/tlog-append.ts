import { nodeSha256 } from "../core/node/crypto.js";
import { appendLeafHashes, appendNodesNeeded, leafHash } from "../core/rfc9162/index.js";
import type { Queryable } from "../store/db.js";
import { insertTlogNodes, nodeKey, readTlogNodes } from "../store/tlog-nodes.js";

/**
 * Appends entries' leaf data to the tenancy's RFC 9162 tree of `size` leaves (the caller holds
 * the log's lock): reads the tree's frontier, writes every perfect subtree the new leaves
 * complete. Returns the new size; the caller records it with the log's head.
 */
export async function appendToTree(
  tx: Queryable,
  tenantId: string,
  size: number,
  leafData: Uint8Array[],
): Promise<number> {
  if (leafData.length === 0) return size;
  const known = await readTlogNodes(tx, tenantId, appendNodesNeeded(size));
  const nodes = appendLeafHashes(
    size,
    leafData.map((d) => leafHash(d, nodeSha256)),
    (level, idx) => {
      const h = known.get(nodeKey(level, idx));
      if (!h) throw new Error(`tree of log ${tenantId} is missing node ${level}/${idx}`);
      return h;
    },
    nodeSha256,
  );
  await insertTlogNodes(tx, tenantId, nodes);
  return size + leafData.length;
}
