import { ml_dsa44 } from "@noble/post-quantum/ml-dsa.js";
import { timestamped } from "../../formats/tlog/cosignature.js";
import { keyIdOf } from "../../formats/tlog/keys.js";
import { ML_DSA_44, subtreeMessage } from "../../formats/tlog/ml-dsa.js";
import type { NoteSignature } from "../../formats/tlog/note.js";
import type { NoteSigner } from "./note-sign.js";

/**
 * ML-DSA-44 cosignatures (C2SP tlog-cosignature type 0x06) as the log and the witness make them;
 * a verifier only checks them (the room's tlog/ml-dsa.ts, which also writes the signed message).
 */

/** An ML-DSA-44 key pair from its 32-byte seed (FIPS 204 keygen is deterministic in it). */
export function mlDsa44Keys(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  return ml_dsa44.keygen(seed);
}

/** An ML-DSA-44 key pair (`mlDsa44Keys`). */
export type MlDsa44Keys = { publicKey: Uint8Array; secretKey: Uint8Array };

/** A note signer making ML-DSA-44 cosignatures of the checkpoints it is given, at `now()` (s). */
export function mlDsa44Signer(name: string, seed: Uint8Array, now: () => number): NoteSigner {
  return mlDsa44KeySigner(name, mlDsa44Keys(seed), now);
}

/**
 * As `mlDsa44Signer`, from a key pair already derived: the keygen costs about a fifth of a
 * signature (~0.8 ms here), and a log signs a checkpoint at every seal.
 */
export function mlDsa44KeySigner(name: string, keys: MlDsa44Keys, now: () => number): NoteSigner {
  return {
    name,
    keyId: keyIdOf(name, ML_DSA_44, keys.publicKey),
    sign: (text) => {
      const t = now();
      return timestamped(t, ml_dsa44.sign(subtreeMessage(name, t, text), keys.secretKey));
    },
  };
}

/** One ML-DSA-44 cosignature of a checkpoint's note text by the named key. */
export function mlDsa44Cosign(
  name: string,
  seed: Uint8Array,
  checkpointText: string,
  timestamp: number,
): NoteSignature {
  const s = mlDsa44Signer(name, seed, () => timestamp);
  return { name, keyId: s.keyId, signature: s.sign(new TextEncoder().encode(checkpointText)) };
}
