import { toHex } from "../../formats/crypto/bytes.js";
import type { PublicKey, SignatureHash } from "../../formats/crypto/public-key.js";

/**
 * The bundle's keys, each keeping what it checked: the same signature over the same bytes is
 * checked once. The receipts under one peak of one seal, and those of one tree size, sign the same
 * Sig_structure, and the service signs it once for all of them (src/keys/signature-memo.ts), so a
 * 1,001-record bundle needs a check per peak and per tree, not two a record. Keyed by the exact
 * bytes and signature, the answer is the check's own: nothing is taken on trust from another.
 */
export function keepingChecks(keys: ReadonlyMap<string, PublicKey>): Map<string, PublicKey> {
  const out = new Map<string, PublicKey>();
  for (const [kid, key] of keys) out.set(kid, keeping(key));
  return out;
}

function keeping(key: PublicKey): PublicKey {
  const checked = new Map<string, boolean>();
  return {
    jwk: key.jwk,
    verify(hash: SignatureHash, data: Uint8Array, signature: Uint8Array): boolean {
      const name = `${hash}:${toHex(signature)}:${toHex(data)}`;
      const kept = checked.get(name);
      if (kept !== undefined) return kept;
      const ok = key.verify(hash, data, signature);
      checked.set(name, ok);
      return ok;
    },
  };
}
