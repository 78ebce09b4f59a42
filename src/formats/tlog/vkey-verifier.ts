import { cosignatureVerifier } from "./cosignature.js";
import { COSIGNATURE_V1, ED25519, ed25519Verifier, parseVkey } from "./keys.js";
import { ML_DSA_44, mlDsa44Verifier } from "./ml-dsa.js";
import { NoteError, type NoteVerifier } from "./note.js";

/**
 * A note verifier for a vkey: a log's Ed25519 key (0x01), an Ed25519 cosignature key (0x04), or
 * an ML-DSA-44 cosignature key (0x06, a log's or a witness's).
 */
export function verifierFromVkey(vkey: string): NoteVerifier {
  const k = parseVkey(vkey);
  if (k.type === ED25519) return ed25519Verifier(k.name, k.publicKey);
  if (k.type === COSIGNATURE_V1) return cosignatureVerifier(k.name, k.publicKey);
  if (k.type === ML_DSA_44) return mlDsa44Verifier(k.name, k.publicKey);
  throw new NoteError(`unsupported vkey signature type 0x${k.type.toString(16).padStart(2, "0")}`);
}
