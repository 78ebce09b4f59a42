import { type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../verify/index.js";

/** Hex of bytes, to key the memo by exact content. */
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/**
 * A key factory whose keys remember each signature they checked. A trail's receipts share their
 * signatures: every record under one sealed MMR peak, or one RFC 9162 tree size, carries the same
 * signed bytes, so a 1,000-record trail holds a handful of distinct signatures, and the portable
 * ECDSA check (milliseconds each in a browser) ran 2,000 times. The memo is keyed by the exact
 * bytes signed and the signature: an answer is only ever reused for the very same question.
 */
export function memoKeyFactory(make: PublicKeyFactory = publicKeyFromJwk): PublicKeyFactory {
  return (jwk) => {
    const key: PublicKey = make(jwk);
    const seen = new Map<string, boolean>();
    return {
      jwk: key.jwk,
      verify(hash, data, signature) {
        const id = `${hash}:${hex(signature)}:${hex(data)}`;
        let ok = seen.get(id);
        if (ok === undefined) {
          ok = key.verify(hash, data, signature);
          seen.set(id, ok);
        }
        return ok;
      },
    };
  };
}
