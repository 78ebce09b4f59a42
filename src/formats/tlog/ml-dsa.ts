import { ml_dsa44 } from "@noble/post-quantum/ml-dsa.js";
import { parseCheckpoint } from "./checkpoint.js";
import { keyIdOf } from "./keys.js";
import type { NoteVerifier } from "./note.js";

/**
 * C2SP tlog-cosignature's ML-DSA-44 type (signature type 0x06): a timestamped ML-DSA-44
 * (FIPS 204) signature over the `subtree/v1` cosigned message, which commits to the signer's
 * name, the log's origin, [start, end) and the root, not to the checkpoint's extension lines.
 * C2SP tlog-checkpoint recommends it for logs' own checkpoint signatures too: the log signs as a
 * cosigner of its own tree, with its origin as the name. Signing is the service's
 * (core/log/ml-dsa-sign.ts); the room checks.
 */
export const ML_DSA_44 = 0x06;
const SIGNATURE = 2420;
const LABEL = new TextEncoder().encode("subtree/v1\n\0");

const u64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
const opaque8 = (s: string) => {
  const b = new TextEncoder().encode(s);
  if (b.length < 1 || b.length > 255) throw new RangeError("a name or origin is 1 to 255 bytes");
  return Uint8Array.of(b.length, ...b);
};

/**
 * The cosigned_message of a checkpoint's note text (start 0, end its size) by `name` at
 * `timestamp` (s); throws when the text is not a checkpoint.
 */
export function subtreeMessage(name: string, timestamp: number, checkpointText: Uint8Array): Uint8Array {
  const c = parseCheckpoint(new TextDecoder().decode(checkpointText));
  const parts = [LABEL, opaque8(name), u64(timestamp), opaque8(c.origin), u64(0), u64(c.size), c.root];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A note verifier for ML-DSA-44 cosignatures (type 0x06) of checkpoints by one key. */
export function mlDsa44Verifier(name: string, publicKey: Uint8Array): NoteVerifier {
  return {
    name,
    keyId: keyIdOf(name, ML_DSA_44, publicKey),
    verify: (text, sig) => {
      if (sig.length !== 8 + SIGNATURE || publicKey.length !== 1312) return false;
      const t = new DataView(sig.buffer, sig.byteOffset).getBigUint64(0);
      if (t > BigInt(Number.MAX_SAFE_INTEGER)) return false;
      try {
        return ml_dsa44.verify(sig.slice(8), subtreeMessage(name, Number(t), text), publicKey);
      } catch {
        return false;
      }
    },
  };
}
