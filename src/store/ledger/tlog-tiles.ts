import { tlogLeafData } from "../../formats/ledger/tlog-leaf.js";
import { mmrIndexOfLeaf } from "../../formats/mmr/indices.js";
import type { NodeCoord } from "../../formats/rfc9162/coords.js";
import { type PerfectHash, perfectHashesRead } from "../../formats/tlog/tree.js";
import type { Queryable } from "../drivers/db.js";
import { entriesForTree, nodeKey, readTlogNodes } from "./tlog-nodes.js";

/**
 * The RFC 9162 tree's leaf data for leaves [first, first + count), in order: what each leaf
 * hashes (an entry bundle's entries), made as the committer made it.
 */
export async function leafEntries(
  db: Queryable,
  tenantId: string,
  first: number,
  count: number,
): Promise<Uint8Array[]> {
  const indices = Array.from({ length: count }, (_, k) => mmrIndexOfLeaf(first + k));
  const entries = await entriesForTree(db, tenantId, indices);
  return entries.map((e) =>
    tlogLeafData({
      mmrLeaf: e.leaf,
      statementPayload:
        e.statement_payload === null ? undefined : new Uint8Array(Buffer.from(e.statement_payload, "hex")),
    }),
  );
}

/**
 * Runs a tree computation (a root, a proof) over the stored perfect subtrees: reads the ones it
 * needs in one statement, then runs it; throws when the tree lacks one (it is not built that far).
 */
export function withNodes<T>(db: Queryable, tenantId: string, run: (get: PerfectHash) => T): Promise<T> {
  return withNodesRead((coords) => readTlogNodes(db, tenantId, coords), tenantId, run);
}

/** `withNodes` over any reader of perfect subtrees (the database, or it and a closed period's archive). */
export async function withNodesRead<T>(
  read: (coords: NodeCoord[]) => Promise<Map<string, Uint8Array>>,
  tenantId: string,
  run: (get: PerfectHash) => T,
): Promise<T> {
  const nodes = await read(perfectHashesRead(run).map(([level, idx]) => ({ level, idx })));
  return run((level, index) => {
    const h = nodes.get(nodeKey(level, index));
    if (!h) throw new Error(`log ${tenantId} has no tree node ${level}/${index}`);
    return h;
  });
}
