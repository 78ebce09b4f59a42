import type { KeyObject } from "node:crypto";
import { leafCount } from "../core/mmr/index.js";
import { nodeEd25519 } from "../core/node/crypto.js";
import {
  ed25519KeySigner,
  formatCheckpoint,
  logOrigin,
  type MlDsa44Keys,
  mlDsa44KeySigner,
  mlDsa44Keys,
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
  /** The service's log keys (Ed25519, ML-DSA-44) as they sign: `CheckpointKeys.of`. */
  signing: CheckpointSigning;
  baseUrl: string;
  /** True when no witnesses are configured: the checkpoint needs no cosignatures. */
  witnessed: boolean;
}

/** The log keys, ready to sign: what is derived from them is derived once, not at every seal. */
export interface CheckpointSigning {
  ed25519: { publicKey: Uint8Array; sign(text: Uint8Array): Uint8Array };
  mlDsa: MlDsa44Keys;
}

/**
 * The sealer's log keys as they sign, kept while the keyring hands out the same keys. Made at
 * each seal, they cost ~1.9 ms of its ~6 ms of signing here (the ML-DSA-44 keygen from its seed,
 * the Ed25519 public key, and @noble's Ed25519 signature where node:crypto's takes 0.03 ms): a
 * seal a second for each active log, so it counts once there are many (docs/scaling.md).
 */
export class CheckpointKeys {
  private last: { privateKey: KeyObject; mlDsaSeed: Uint8Array; signing: CheckpointSigning } | undefined;

  of(privateKey: KeyObject, mlDsaSeed: Uint8Array): CheckpointSigning {
    const last = this.last;
    if (last?.privateKey === privateKey && last.mlDsaSeed === mlDsaSeed) return last.signing;
    const signing = { ed25519: nodeEd25519(privateKey), mlDsa: mlDsa44Keys(mlDsaSeed) };
    this.last = { privateKey, mlDsaSeed, signing };
    return signing;
  }
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
  const { ed25519, mlDsa } = key.signing;
  const note = signNote(text, [
    ed25519KeySigner(origin, ed25519.publicKey, ed25519.sign),
    mlDsa44KeySigner(origin, mlDsa, () => Math.floor(Date.now() / 1000)),
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
