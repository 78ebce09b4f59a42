import { type MlDsa44Keys, mlDsa44KeySigner, mlDsa44Keys } from "../core/log/ml-dsa-sign.js";
import { ed25519KeySigner, signNote } from "../core/log/note-sign.js";
import { formatCheckpoint } from "../core/log/tlog-format.js";
import { consistencyProof } from "../core/log/tree-proof.js";
import { leafCount } from "../formats/mmr/indices.js";
import * as tree from "../formats/rfc9162/index.js";
import { verifyConsistency as rfc9162VerifyConsistency } from "../formats/rfc9162/verify.js";
import { logOrigin } from "../formats/tlog/origin.js";
import { treeRoot } from "../formats/tlog/tree.js";
import type { LoadedKey } from "../keys/keyring.js";
import type { SignedBasis } from "../keys/signed-basis.js";
import type { Queryable } from "../store/drivers/db.js";
import { insertCheckpoint, latestCheckpoint, originOf } from "../store/ledger/tlog-checkpoints.js";
import { tlogSize } from "../store/ledger/tlog-nodes.js";
import type { IndexWriter } from "../vindex/index-writer.js";

export { TLOG_KEY, TLOG_ML_DSA_KEY } from "../store/ledger/tlog-checkpoints.js";

import { withNodes } from "../store/ledger/tlog-tiles.js";

/** What a seal needs to publish its checkpoint. */
export interface CheckpointKey {
  /** The service's log keys (Ed25519, ML-DSA-44) as they sign: `CheckpointKeys.of`. */
  signing: CheckpointSigning;
  baseUrl: string;
  /** True when no witnesses are configured: the checkpoint needs no cosignatures. */
  witnessed: boolean;
  /** The verifiable index, revised at each checkpoint (docs/complete-trails.md). */
  index?: IndexWriter | undefined;
}

/** The log keys, ready to sign: what is derived from them is derived once, not at every seal. */
export interface CheckpointSigning {
  /** The current Ed25519 key first, then retired ones still co-signing (docs/keys.md: rotating the log key). */
  ed25519: Array<{ publicKey: Uint8Array; key: Pick<LoadedKey, "sign" | "signSync"> }>;
  /** The same for ML-DSA-44: the current seed's keys, then the co-signing ones'. */
  mlDsa: MlDsa44Keys[];
}

/** An Ed25519 key's 32 public bytes, from its JWK. */
export function ed25519PublicBytes(key: Pick<LoadedKey, "publicJwk">): Uint8Array {
  const x = key.publicJwk.x;
  if (key.publicJwk.crv !== "Ed25519" || typeof x !== "string")
    throw new Error("the log key is not an Ed25519 key");
  return new Uint8Array(Buffer.from(x, "base64url"));
}

/**
 * The sealer's log keys as they sign, kept while the keyring hands out the same keys. Made at
 * each seal, they cost ~1.9 ms of its ~6 ms of signing here (the ML-DSA-44 keygen from its seed
 * and the Ed25519 public key): a seal a second for each active log, so it counts once there are
 * many (docs/scaling.md).
 */
export class CheckpointKeys {
  private last: { keys: LoadedKey[]; seeds: Uint8Array[]; signing: CheckpointSigning } | undefined;

  of(keys: LoadedKey[], seeds: Uint8Array[]): CheckpointSigning {
    const last = this.last;
    const same = <T>(a: T[], b: T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (last && same(last.keys, keys) && same(last.seeds, seeds)) return last.signing;
    const signing = {
      ed25519: keys.map((key) => ({ publicKey: ed25519PublicBytes(key), key })),
      mlDsa: seeds.map(mlDsa44Keys),
    };
    this.last = { keys, seeds, signing };
    return signing;
  }
}

/** A checkpoint about to be signed: its origin, size and root, checked to follow the last one signed. */
export interface PendingCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/**
 * The C2SP checkpoint of the RFC 9162 tree at the seal's size (the leaves of the sealed MMR), as
 * it will be signed, inside the seal's transaction: its root is known before anything is signed,
 * so the log's head can move to it first. The origin stays the one the log was first published
 * under. Undefined while the tree is backfilled (a later seal's checkpoint covers this one).
 */
export async function prepareCheckpoint(
  tx: Queryable,
  tenantId: string,
  mmrSize: number,
  key: CheckpointKey,
  basis?: SignedBasis,
): Promise<PendingCheckpoint | undefined> {
  const size = leafCount(mmrSize);
  if ((await tlogSize(tx, tenantId)) < size) return undefined;
  const origin = (await originOf(tx, tenantId)) ?? logOrigin(key.baseUrl, tenantId);
  const root = await withNodes(tx, tenantId, (get) => treeRoot(size, get));
  if (basis) await followsLastCheckpoint(tx, tenantId, size, root, basis);
  return { origin, size, root };
}

/** Signs and stores a prepared checkpoint, published with the seal by its transaction's commit. */
export async function signCheckpoint(
  tx: Queryable,
  tenantId: string,
  mmrSize: number,
  cp: PendingCheckpoint,
  key: CheckpointKey,
  basis?: SignedBasis,
): Promise<void> {
  const { origin, size, root } = cp;
  const text = formatCheckpoint({ origin, size, root, extensions: [] });
  // Ed25519 for today's verifiers, ML-DSA-44 (as a cosignature of its own tree, C2SP tlog-checkpoint)
  // beside it; after a rotation the retired keys sign too, under their own key ids, for a while.
  const { ed25519, mlDsa } = key.signing;
  const bytes = new TextEncoder().encode(text);
  const signatures = await Promise.all(
    ed25519.map((k) => (k.key.signSync ? k.key.signSync(bytes) : k.key.sign(bytes))),
  );
  const now = Math.floor(Date.now() / 1000);
  const note = signNote(text, [
    ...ed25519.map((k, i) => ed25519KeySigner(origin, k.publicKey, () => signatures[i] as Uint8Array)),
    ...mlDsa.map((m) => mlDsa44KeySigner(origin, m, () => now)),
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
  basis?.signedCheckpoint({ tenant_id: tenantId, size, note }, root);
}

/**
 * Refuses (`SignedBasis.refuse`) a checkpoint that does not extend the last one signed: the
 * stored checkpoint's signature is checked, and the RFC 9162 consistency proof from its root to
 * the new one, made from the stored tree, must verify. A tree rewritten under a signed checkpoint
 * is never signed again.
 */
async function followsLastCheckpoint(
  tx: Queryable,
  tenantId: string,
  size: number,
  root: Uint8Array,
  basis: SignedBasis,
): Promise<void> {
  const last = await latestCheckpoint(tx, tenantId);
  if (!last) return;
  const signedRoot = await basis.checkpointRoot("checkpoint", last);
  const consistent =
    last.size <= size &&
    (last.size === size
      ? tree.sameHash(signedRoot, root)
      : rfc9162VerifyConsistency(
          last.size,
          size,
          signedRoot,
          root,
          await withNodes(tx, tenantId, (get) => consistencyProof(last.size, size, get)),
        ));
  if (!consistent)
    throw basis.refuse(
      "checkpoint",
      tenantId,
      `the tree of ${size} entries is not consistent with the checkpoint of ${last.size} entries this service signed`,
    );
}
