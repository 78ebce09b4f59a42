import { sha256 as noble } from "@noble/hashes/sha2.js";

/**
 * SHA-256 of the parts, one after the other. Every hashing function of the core that a server hot
 * path calls takes one: the verifier uses the default (portable, @noble/hashes), the service
 * passes node:crypto's (`src/core/node/crypto.ts`), which is several times faster on Node.
 */
export type Sha256 = (...parts: Uint8Array[]) => Uint8Array;

/** The portable SHA-256 (browsers and Node alike). */
export const sha256: Sha256 = (...parts) => {
  if (parts.length === 1) return noble(parts[0] as Uint8Array);
  const h = noble.create();
  for (const p of parts) h.update(p);
  return h.digest();
};
