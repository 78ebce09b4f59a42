import type { PublicKey } from "../../formats/crypto/public-key.js";
import { emptyPolicy, pinsAnything, type TrustPolicy } from "./policy.js";

/**
 * The caller's trust roots: a policy (keys, witnesses, requirements) and COSE keys given by value.
 *
 * @example
 * ```ts
 * const roots: TrustRoots = { policy: parsePolicy(policyText), serviceKeys: keysFromKeySet(keySet), described: ["policy", "keys"] };
 * ```
 */
export interface TrustRoots {
  policy: TrustPolicy;
  /** The service's COSE keys as the caller obtained them (`--keys`): pinned as they are, by kid. */
  serviceKeys?: Map<string, PublicKey>;
  /** The roots in words, for the verdict ("--keys scitt-keys.cbor", "policy trust.txt"). */
  described: string[];
}

/**
 * No trust root: every check can then only show self-consistency.
 *
 * @example
 * ```ts
 * const report = verifyBundle(bundle, noTrust()); // at best "self-consistent-unpinned"
 * ```
 */
export const noTrust = (): TrustRoots => ({ policy: emptyPolicy(), described: [] });

export const pinsSomething = (t: TrustRoots): boolean =>
  pinsAnything(t.policy) || (t.serviceKeys?.size ?? 0) > 0;
