import type { KeyObject } from "node:crypto";
import { decodeCbor } from "../cbor/index.js";
import { publicKeyFromCoseKey } from "../cose/index.js";

/** Keys by kid from a COSE_KeySet (as `/.well-known/scitt-keys` serves it). */
export function keysFromKeySet(bytes: Uint8Array): Map<string, KeyObject> {
  const set = decodeCbor(bytes);
  const out = new Map<string, KeyObject>();
  if (!Array.isArray(set)) return out;
  for (const item of set) {
    const k = item instanceof Map ? publicKeyFromCoseKey(item) : undefined;
    if (k) out.set(k.kid, k.publicKey);
  }
  return out;
}
