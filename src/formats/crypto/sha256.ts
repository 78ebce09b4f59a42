import { sha256 as noble } from "@noble/hashes/sha2.js";
import { SHORT_MESSAGE, sha256Into, sha256Short } from "./sha256-short.js";

// Where short parts are joined; the hash reads it before anything else can write it.
const joined = new Uint8Array(SHORT_MESSAGE);

/**
 * SHA-256 of the parts, one after the other. Every hashing function of the core that a server hot
 * path calls takes one: the verifier uses the default (portable, @noble/hashes), the service
 * passes node:crypto's (`src/core/node/crypto.ts`), which is several times faster on Node.
 */
export type Sha256 = (...parts: Uint8Array[]) => Uint8Array;

/** The portable SHA-256 (browsers and Node alike). */
export const sha256: Sha256 = (...parts) => {
  if (parts.length === 1) {
    const only = parts[0] as Uint8Array;
    return only.length <= SHORT_MESSAGE ? sha256Short(only) : noble(only);
  }
  let size = 0;
  for (const p of parts) size += p.length;
  if (size <= SHORT_MESSAGE) {
    // A Merkle node's tag and children, laid out once and hashed where a hash object would cost more.
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    const out = new Uint8Array(32);
    sha256Into(joined, out, 0, size);
    return out;
  }
  const h = noble.create();
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * SHA-256(0x00 ‖ uint64_be(idtimestamp) ‖ text) when `text` is all ASCII (its characters are its
 * bytes), else undefined: an asset event's leaf from its bencode text. The service passes one that
 * writes the text straight into the hashed buffer (`src/core/node/crypto.ts`).
 */
export type AsciiLeafSha256 = (idtimestamp: bigint, text: string) => Uint8Array | undefined;
