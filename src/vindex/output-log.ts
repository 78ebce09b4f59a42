import { ed25519KeySigner, signNote } from "../core/log/note-sign.js";
import { formatCheckpoint } from "../core/log/tlog-format.js";
import { appendLeafHashes, appendNodesNeeded } from "../core/log/tree-append.js";
import { consistencyProof } from "../core/log/tree-proof.js";
import { nodeSha256 } from "../core/node/crypto.js";
import * as rfc9162 from "../formats/rfc9162/index.js";
import { treeRoot } from "../formats/tlog/tree.js";
import { encodeRevision, type VindexRevision } from "../formats/vindex/index.js";
import type { Queryable } from "../store/drivers/db.js";
import { insertTlogNodes, nodeKey, readTlogNodes } from "../store/ledger/tlog-nodes.js";
import { withNodesRead } from "../store/ledger/tlog-tiles.js";

// The index's output log: one entry per revision (`encodeRevision`: the log size and root a
// revision is bound to, the index root and the VRF key), an RFC 9162 tree over them and a C2SP
// checkpoint of it signed with the log key under its own origin (`indexOrigin`).

/** The output log's leaf of a revision. */
export function revisionLeaf(r: VindexRevision): Uint8Array {
  return rfc9162.leafHash(encodeRevision(r), nodeSha256);
}

const reader = (db: Queryable, tenantId: string) => (coords: Parameters<typeof readTlogNodes>[2]) =>
  readTlogNodes(db, tenantId, coords, "vindex_nodes");

/** The output tree's root at `size` revisions, from its stored nodes. */
export function outputRoot(db: Queryable, tenantId: string, size: number): Promise<Uint8Array> {
  return withNodesRead(reader(db, tenantId), tenantId, (get) => treeRoot(size, get));
}

/** The inclusion proof of revision `seq` in the output tree of `size` revisions. */
export function revisionInclusion(
  db: Queryable,
  tenantId: string,
  seq: number,
  size: number,
): Promise<Uint8Array[]> {
  return withNodesRead(reader(db, tenantId), tenantId, (get) => rfc9162.inclusionProof(seq, size, get));
}

/** The consistency proof between two sizes of the output tree. */
export function outputConsistency(
  db: Queryable,
  tenantId: string,
  from: number,
  to: number,
): Promise<Uint8Array[]> {
  return withNodesRead(reader(db, tenantId), tenantId, (get) => consistencyProof(from, to, get));
}

/** Appends revision `seq` (the tree holds `seq` revisions) and returns the new root. */
export async function appendRevision(
  tx: Queryable,
  tenantId: string,
  seq: number,
  revision: VindexRevision,
): Promise<Uint8Array> {
  const known = await readTlogNodes(tx, tenantId, appendNodesNeeded(seq), "vindex_nodes");
  const nodes = appendLeafHashes(
    seq,
    [revisionLeaf(revision)],
    (level, idx) => {
      const h = known.get(nodeKey(level, idx));
      if (!h) throw new Error(`the index of log ${tenantId} is missing output node ${level}/${idx}`);
      return h;
    },
    nodeSha256,
  );
  await insertTlogNodes(tx, tenantId, nodes, "vindex_nodes");
  for (const n of nodes) known.set(nodeKey(n.level, n.idx), n.hash);
  return treeRoot(seq + 1, (level, idx) => {
    const h = known.get(nodeKey(level, idx));
    if (!h) throw new Error(`the index of log ${tenantId} is missing output node ${level}/${idx}`);
    return h;
  });
}

/** The log's Ed25519 keys as the seal signs with them (current first, then co-signing). */
export type Ed25519Signing = ReadonlyArray<{
  publicKey: Uint8Array;
  key: {
    sign(data: Uint8Array): Promise<Uint8Array>;
    signSync?: ((data: Uint8Array) => Uint8Array) | undefined;
  };
}>;

/** The output log's checkpoint note at `size` revisions, signed by the log's Ed25519 keys. */
export async function signIndexCheckpoint(
  origin: string,
  size: number,
  root: Uint8Array,
  keys: Ed25519Signing,
): Promise<string> {
  const text = formatCheckpoint({ origin, size, root, extensions: [] });
  const bytes = new TextEncoder().encode(text);
  const signatures = await Promise.all(
    keys.map((k) => (k.key.signSync ? k.key.signSync(bytes) : k.key.sign(bytes))),
  );
  return signNote(
    text,
    keys.map((k, i) => ed25519KeySigner(origin, k.publicKey, () => signatures[i] as Uint8Array)),
  );
}
