import { decodeCbor } from "../../formats/cbor/index.js";
import { publicKeyFromCoseKey } from "../../formats/cose/index.js";
import { type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../../formats/crypto/public-key.js";

/**
 * Keys by kid from a COSE_KeySet (as `/.well-known/scitt-keys` serves it). `makeKey` is the
 * portable key unless a Node program passes node:crypto's (`nodePublicKeyFromJwk`).
 *
 * @example
 * ```ts
 * const keys = keysFromKeySet(new Uint8Array(await (await fetch(`${url}/.well-known/scitt-keys`)).arrayBuffer()));
 * ```
 */
export function keysFromKeySet(
  bytes: Uint8Array,
  makeKey: PublicKeyFactory = publicKeyFromJwk,
): Map<string, PublicKey> {
  const set = decodeCbor(bytes);
  const out = new Map<string, PublicKey>();
  if (!Array.isArray(set)) return out;
  for (const item of set) {
    const k = item instanceof Map ? publicKeyFromCoseKey(item, makeKey) : undefined;
    if (k) out.set(k.kid, k.publicKey);
  }
  return out;
}
