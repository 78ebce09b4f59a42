import { ed25519 } from "@noble/curves/ed25519.js";
import { utf8 } from "../crypto/bytes.js";
import { sha256 } from "../crypto/sha256.js";
import { fromBase64, NoteError, type NoteVerifier, validKeyName } from "./note.js";

/** Signature type bytes of signed-note keys this service uses. */
export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

/** SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4] as a uint32. */
export function keyIdOf(name: string, type: number, publicKey: Uint8Array): number {
  const h = sha256(utf8(name), Uint8Array.of(0x0a, type), publicKey);
  return new DataView(h.buffer, h.byteOffset, h.byteLength).getUint32(0);
}

export interface Vkey {
  name: string;
  keyId: number;
  type: number;
  publicKey: Uint8Array;
}

/** Parses a vkey; refuses one whose key id does not match its name and key. */
export function parseVkey(vkey: string): Vkey {
  // Names hold no `+`; the base64 key may.
  const m = /^([^+]+)\+([^+]*)\+(.*)$/.exec(vkey.trim());
  if (!m) throw new NoteError("a vkey is name+keyid+key");
  const [, name, id, b64] = m as unknown as [string, string, string, string];
  if (!validKeyName(name)) throw new NoteError("the vkey's name is not a valid key name");
  if (!/^[0-9a-f]{8}$/.test(id)) throw new NoteError("the vkey's key id is not 8 hex digits");
  const material = fromBase64(b64);
  const type = material[0] as number;
  const publicKey = material.slice(1);
  if ((type === ED25519 || type === COSIGNATURE_V1) && publicKey.length !== 32)
    throw new NoteError("an Ed25519 vkey holds a 32-byte key");
  if (type === 0x06 && publicKey.length !== 1312)
    throw new NoteError("an ML-DSA-44 vkey holds a 1312-byte key");
  const keyId = Number.parseInt(id, 16);
  if (keyIdOf(name, type, publicKey) !== keyId)
    throw new NoteError("the vkey's key id does not match its key");
  return { name, keyId, type, publicKey };
}

function ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return signature.length === 64 && ed25519.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

/** An Ed25519 (type 0x01) note verifier. */
export function ed25519Verifier(name: string, publicKey: Uint8Array): NoteVerifier {
  return {
    name,
    keyId: keyIdOf(name, ED25519, publicKey),
    verify: (text, sig) => ed25519Verify(sig, text, publicKey),
  };
}

export { ed25519Verify };
