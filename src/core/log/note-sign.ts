import { ed25519 } from "@noble/curves/ed25519.js";
import { toBase64 } from "../../formats/crypto/bytes.js";
import { cosignedMessage, timestamped } from "../../formats/tlog/cosignature.js";
import { COSIGNATURE_V1, ED25519, keyIdOf } from "../../formats/tlog/keys.js";
import { DASH as NOTE_SIGNATURE_DASH, NoteError, type NoteSignature } from "../../formats/tlog/note.js";

/**
 * Writing C2SP signed notes and their keys: the log's checkpoint signatures, a witness's
 * cosignatures, the vkeys the service publishes. A verifier only reads and checks these (the
 * room's tlog/note.ts, keys.ts and cosignature.ts).
 */

/** Signs note texts as one key. */
export interface NoteSigner {
  name: string;
  keyId: number;
  sign(text: Uint8Array): Uint8Array;
}

/** One signature line (with its newline). */
export function signatureLine(s: NoteSignature): string {
  const bytes = new Uint8Array(4 + s.signature.length);
  new DataView(bytes.buffer).setUint32(0, s.keyId >>> 0);
  bytes.set(s.signature, 4);
  return `${NOTE_SIGNATURE_DASH}${s.name} ${toBase64(bytes)}\n`;
}

/** A note's text followed by its signature lines. */
export function formatNote(text: string, signatures: NoteSignature[]): string {
  if (!text.endsWith("\n")) throw new NoteError("note text must end in a newline");
  return `${text}\n${signatures.map(signatureLine).join("")}`;
}

/** Signs `text` with each signer: the signed note. */
export function signNote(text: string, signers: NoteSigner[]): string {
  const bytes = new TextEncoder().encode(text);
  return formatNote(
    text,
    signers.map((s) => ({ name: s.name, keyId: s.keyId, signature: s.sign(bytes) })),
  );
}

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, "0");

/** `<name>+hex(key id)+base64(type ‖ public key)`. */
export function formatVkey(name: string, type: number, publicKey: Uint8Array): string {
  const material = new Uint8Array(1 + publicKey.length);
  material[0] = type;
  material.set(publicKey, 1);
  return `${name}+${hex8(keyIdOf(name, type, publicKey))}+${toBase64(material)}`;
}

export const ed25519PublicKey = (seed: Uint8Array): Uint8Array => ed25519.getPublicKey(seed);

/** An Ed25519 (type 0x01) note signer from a 32-byte seed. */
export function ed25519Signer(name: string, seed: Uint8Array): NoteSigner {
  return ed25519KeySigner(name, ed25519.getPublicKey(seed), (text) => ed25519.sign(text, seed));
}

/**
 * An Ed25519 (type 0x01) note signer from its public key and a signing function: the service
 * signs its checkpoints with node:crypto (~0.03 ms against ~0.6 ms here; Ed25519 is
 * deterministic, so the signatures are the same bytes).
 */
export function ed25519KeySigner(
  name: string,
  publicKey: Uint8Array,
  sign: (text: Uint8Array) => Uint8Array,
): NoteSigner {
  return { name, keyId: keyIdOf(name, ED25519, publicKey), sign };
}

/** A cosignature/v1 of `checkpointText` by the witness key (seed) named `name`, at `timestamp` (s). */
export function cosign(
  name: string,
  seed: Uint8Array,
  checkpointText: string,
  timestamp: number,
): NoteSignature {
  const pub = ed25519.getPublicKey(seed);
  const message = cosignedMessage(timestamp, new TextEncoder().encode(checkpointText));
  const signature = timestamped(timestamp, ed25519.sign(message, seed));
  return { name, keyId: keyIdOf(name, COSIGNATURE_V1, pub), signature };
}
