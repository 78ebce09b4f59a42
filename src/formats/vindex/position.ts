/**
 * Where a key sits in vindex/v1 and the salt of its value (docs/complete-trails.md, "Positions").
 * A key free text makes (a statement's issuer or subject: a phone number, a DID) is placed by the
 * service's VRF, so that no one without its key can test a guess against a position a proof shows.
 * A key that names a uuid (an asset, a vCon) is placed by a hash: a microsecond where the VRF costs
 * 0.15 ms of CPU for every new vCon, which the conserver's pipeline could not carry within the
 * release's cost; what that leaves open is in the docs ("Hashed keys").
 */
import { sha512 } from "@noble/hashes/sha2.js";
import { utf8 } from "../crypto/bytes.js";
import { vindexOutputFromProof, vrfVerify } from "../vrf/index.js";
import { positionOf, vrfInput } from "./map.js";

/** What a hashed key's SHA-512 input starts with, before its VRF input. */
export const HASHED_TAG = utf8("vindex/v1 hashed");

/** Whether a key is placed by a hash (an asset's or a vCon's: a uuid) rather than by the VRF. */
export function isHashedKey(key: string): boolean {
  return key.startsWith("assets/") || key.startsWith("vcon://");
}

/** A hashed key's output: SHA-512("vindex/v1 hashed" ‖ alpha). */
export function hashedOutput(alpha: Uint8Array): Uint8Array {
  const m = new Uint8Array(HASHED_TAG.length + alpha.length);
  m.set(HASHED_TAG);
  m.set(alpha, HASHED_TAG.length);
  return sha512(m);
}

/**
 * A key's position and salt as a verifier derives them: from the VRF proof the lookup carries,
 * checked against the VRF key the signed revision names, or, for a hashed key, from the key alone
 * (it must then carry no proof). Undefined when the proof does not verify or is where none belongs.
 */
export function verifiedPosition(
  log: string,
  key: string,
  vrfProof: Uint8Array | null,
  vrfKey: Uint8Array,
): { position: Uint8Array; salt: Uint8Array } | undefined {
  const alpha = vrfInput(log, key);
  if (isHashedKey(key)) return vrfProof === null ? positionOf(hashedOutput(alpha)) : undefined;
  if (vrfProof === null || !vrfVerify(vrfKey, vrfProof, alpha)) return undefined;
  return positionOf(vindexOutputFromProof(vrfProof));
}
