import { fromBase64, toHex } from "../../formats/crypto/bytes.js";
import type { PublicKey } from "../../formats/crypto/public-key.js";
import { sha256 } from "../../formats/crypto/sha256.js";
import { parseVkey } from "../../formats/tlog/keys.js";
import type { KeyFingerprint } from "./verdict.js";

const digest = (b: Uint8Array) => `sha256:${toHex(sha256(b))}`;

// The DER of a P-256 SubjectPublicKeyInfo up to its uncompressed point (RFC 5480): the same
// 26 bytes for every such key, so the fingerprint needs no DER encoder (nor node:crypto).
const P256_SPKI_PREFIX = Uint8Array.from(
  "3059301306072a8648ce3d020106082a8648ce3d030107034200".match(/../g) as string[],
  (h) => Number.parseInt(h, 16),
);

/**
 * `sha256:<hex>` of a P-256 public key's SPKI DER, as
 * `openssl pkey -pubin -outform DER | sha256sum` prints it.
 */
export function keyFingerprint(key: PublicKey): string {
  const { jwk } = key;
  if (jwk.crv !== "P-256") throw new TypeError("only P-256 keys have a fingerprint here");
  const x = fromBase64(jwk.x);
  const y = fromBase64(jwk.y);
  const spki = new Uint8Array(P256_SPKI_PREFIX.length + 1 + x.length + y.length);
  spki.set(P256_SPKI_PREFIX);
  spki[P256_SPKI_PREFIX.length] = 4;
  spki.set(x, P256_SPKI_PREFIX.length + 1);
  spki.set(y, P256_SPKI_PREFIX.length + 1 + x.length);
  return digest(spki);
}

/** The fingerprints of a COSE key set (each key, and the set's bytes as served) for out-of-band comparison. */
export function coseKeyFingerprints(
  keySet: Uint8Array,
  keys: Map<string, PublicKey>,
  pinned: (kid: string, fingerprint: string) => boolean,
): KeyFingerprint[] {
  const out: KeyFingerprint[] = [
    { kind: "cose-key-set", id: "/.well-known/scitt-keys", fingerprint: digest(keySet), pinned: false },
  ];
  for (const [kid, key] of keys) {
    const fingerprint = keyFingerprint(key);
    out.push({ kind: "cose-key", id: kid, fingerprint, pinned: pinned(kid, fingerprint) });
  }
  return out;
}

/** A log key's fingerprint: its vkey, which names the log and holds the key. */
export function logKeyFingerprint(vkey: string, pinned: boolean): KeyFingerprint {
  let id = "(unreadable vkey)";
  try {
    id = parseVkey(vkey).name;
  } catch {
    // Shown as given: the check that reads it reports why it is unreadable.
  }
  return { kind: "log-key", id, fingerprint: vkey.trim(), pinned };
}
