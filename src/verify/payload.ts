import { sha256 } from "@noble/hashes/sha2.js";
import { decodeSign1 } from "../formats/cose/index.js";

/**
 * Whether a hashed signed statement's payload is the SHA-256 of `payload`: the statement signs
 * the digest, so the document itself is checked by hashing it.
 *
 * @example
 * ```ts
 * if (!statementPayloadMatches(statementBytes, documentBytes)) throw new Error("not this document's statement");
 * ```
 */
export function statementPayloadMatches(statement: Uint8Array, payload: Uint8Array): boolean {
  const signed = decodeSign1(statement).payload;
  if (!signed) return false;
  const digest = sha256(payload);
  return signed.length === digest.length && signed.every((b, i) => b === digest[i]);
}
