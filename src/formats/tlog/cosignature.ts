import { COSIGNATURE_V1, ed25519Verify, keyIdOf } from "./keys.js";
import type { NoteVerifier } from "./note.js";

/**
 * C2SP tlog-cosignature v1 (signature type 0x04): a witness's Ed25519 signature over
 * `cosignature/v1\ntime <t>\n` followed by the checkpoint's note text; the signature bytes are
 * the 8-byte big-endian POSIX time, then the 64-byte signature.
 */
const enc = new TextEncoder();

/** What a cosignature/v1 signs: its header at `timestamp` (s), then the checkpoint's note text. */
export function cosignedMessage(timestamp: number, checkpointText: Uint8Array): Uint8Array {
  const head = enc.encode(`cosignature/v1\ntime ${timestamp}\n`);
  const out = new Uint8Array(head.length + checkpointText.length);
  out.set(head);
  out.set(checkpointText, head.length);
  return out;
}

/** The timestamp a cosignature claims (Ed25519: 72 bytes; ML-DSA-44: 2428), or undefined for another length. */
export function cosignatureTime(signature: Uint8Array): number | undefined {
  if (signature.length !== 72 && signature.length !== 8 + 2420) return undefined;
  const t = new DataView(signature.buffer, signature.byteOffset).getBigUint64(0);
  return t > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(t);
}

/** A cosignature's bytes: the 8-byte big-endian time (s) it claims, then the signature. */
export function timestamped(timestamp: number, signature: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + signature.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(timestamp));
  out.set(signature, 8);
  return out;
}

/** The last second RFC 3339 can write (9999-12-31T23:59:59Z): its years have four digits. */
const LAST_RFC3339_S = 253_402_300_799;

/**
 * A cosignature's time (POSIX seconds) in RFC 3339, or undefined for one it cannot write: the
 * time is the witness's word, signed but not checked, and a broken or hostile witness may date
 * its cosignature in the year 300,000 (where `Date` gives up) or at 2^53.
 */
export function cosignatureDate(seconds: number): string | undefined {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > LAST_RFC3339_S) return undefined;
  return new Date(seconds * 1000).toISOString();
}

/** A note verifier for cosignature/v1 signatures of one witness. */
export function cosignatureVerifier(name: string, publicKey: Uint8Array): NoteVerifier {
  return {
    name,
    keyId: keyIdOf(name, COSIGNATURE_V1, publicKey),
    verify: (text, sig) => {
      const t = cosignatureTime(sig);
      return t !== undefined && t > 0 && ed25519Verify(sig.slice(8), cosignedMessage(t, text), publicKey);
    },
  };
}
