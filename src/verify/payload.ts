import { createHash } from "node:crypto";
import { decodeSign1 } from "../core/cose/index.js";

/**
 * Whether a hashed signed statement's payload is the SHA-256 of `payload`: the statement signs
 * the digest, so the document itself is checked by hashing it.
 */
export function statementPayloadMatches(statement: Uint8Array, payload: Uint8Array): boolean {
  const signed = decodeSign1(statement).payload;
  if (!signed) return false;
  const digest = createHash("sha256").update(payload).digest();
  return Buffer.compare(Buffer.from(signed), Buffer.from(digest)) === 0;
}
