import { createHash, type KeyObject } from "node:crypto";
import { parseVkey } from "../tlog/keys.js";
import type { KeyFingerprint } from "./verdict.js";

const sha256 = (b: Uint8Array) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** `sha256:<hex>` of a public key's SPKI DER (as `openssl pkey -pubin -outform DER | sha256sum`). */
export const keyFingerprint = (key: KeyObject): string => sha256(key.export({ type: "spki", format: "der" }));

/** The fingerprints of a COSE key set (each key, and the set's bytes as served) for out-of-band comparison. */
export function coseKeyFingerprints(
  keySet: Uint8Array,
  keys: Map<string, KeyObject>,
  pinned: (kid: string, fingerprint: string) => boolean,
): KeyFingerprint[] {
  const out: KeyFingerprint[] = [
    { kind: "cose-key-set", id: "/.well-known/scitt-keys", fingerprint: sha256(keySet), pinned: false },
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
