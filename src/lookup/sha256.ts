import { toHex } from "../formats/crypto/bytes.js";
import { sha256 } from "../formats/crypto/sha256.js";

/** SHA-256 hex of bytes (a document's digest, as a hashed statement's payload holds it). */
export const sha256Hex = (bytes: Uint8Array): string => toHex(sha256(bytes));
