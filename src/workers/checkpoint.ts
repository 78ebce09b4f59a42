import type { KeyObject } from "node:crypto";
import { leafCount } from "../core/mmr/index.js";
import {
  ed25519Signer,
  formatCheckpoint,
  logOrigin,
  mlDsa44Signer,
  signNote,
  treeRoot,
} from "../core/tlog/index.js";
import type { Queryable } from "../store/db.js";
import { insertCheckpoint, markSealUnwitnessed, originOf } from "../store/tlog-checkpoints.js";
import { tlogSize } from "../store/tlog-nodes.js";

export { TLOG_KEY, TLOG_ML_DSA_KEY } from "../store/tlog-checkpoints.js";

import { withNodes } from "../store/tlog-tiles.js";

/** What a seal needs to publish its checkpoint. */
export interface CheckpointKey {
  /** The service's Ed25519 log key. */
  privateKey: KeyObject;
  /** The seed of the service's ML-DSA-44 log key: every checkpoint is signed with both. */
  mlDsaSeed: Uint8Array;
  baseUrl: string;
  /** True when no witnesses are configured: the checkpoint needs no cosignatures. */
  witnessed: boolean;
}

/** The 32-byte Ed25519 seed of a node:crypto private key. */
export function ed25519Seed(privateKey: KeyObject): Uint8Array {
  const jwk = privateKey.export({ format: "jwk" });
  if (jwk.crv !== "Ed25519" || typeof jwk.d !== "string")
    throw new Error("the log key is not an Ed25519 key");
  return new Uint8Array(Buffer.from(jwk.d, "base64url"));
}

/**
 * Signs and stores the C2SP checkpoint of the RFC 9162 tree at the seal's size (the leaves of
 * the sealed MMR), inside the seal's transaction: one sequence, two commitments, published
 * together. The origin stays the one the log was first published under. A seal made while
 * witnesses are configured is marked unwitnessed until a quorum cosigns a checkpoint covering it.
 */
export async function publishCheckpoint(
  tx: Queryable,
  tenantId: string,
  mmrSize: number,
  key: CheckpointKey,
): Promise<void> {
  if (!key.witnessed) await markSealUnwitnessed(tx, tenantId, mmrSize);
  const size = leafCount(mmrSize);
  // A log older than the tree is still being backfilled: a later seal's checkpoint covers this one.
  if ((await tlogSize(tx, tenantId)) < size) return;
  const origin = (await originOf(tx, tenantId)) ?? logOrigin(key.baseUrl, tenantId);
  const root = await withNodes(tx, tenantId, (get) => treeRoot(size, get));
  const text = formatCheckpoint({ origin, size, root, extensions: [] });
  // Ed25519 for today's verifiers, ML-DSA-44 (as a cosignature of its own tree, C2SP tlog-checkpoint) beside it.
  const note = signNote(text, [
    ed25519Signer(origin, ed25519Seed(key.privateKey)),
    mlDsa44Signer(origin, key.mlDsaSeed, () => Math.floor(Date.now() / 1000)),
  ]);
  await insertCheckpoint(tx, {
    tenant_id: tenantId,
    size,
    mmr_size: mmrSize,
    origin,
    root,
    note,
    witnessed: key.witnessed,
  });
}
