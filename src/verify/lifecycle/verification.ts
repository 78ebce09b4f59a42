/**
 * Consent verification recorded before processing: the lifecycle draft's editor's copy asks that
 * a processor verify consent before training (and, for inference, that it cease once consent is
 * revoked), and that the verification be recorded. The consent gate (or any processor, through
 * `POST /archivist/v1/consent/vcons/{uuid}/verifications`) records `vcon_consent_verified` naming
 * the purpose, the operation it lets through and the grant it found in force. This reads, for one
 * processing event, whether such a record precedes it: pure, from the records alone.
 */
import { consentOf, type LifecycleRecord } from "../../formats/lifecycle/consent.js";
import { LIFECYCLE_ATTRIBUTES, recordAttributes } from "../../formats/lifecycle/vocabulary.js";

/** Whether a record is a consent verification. */
export function isVerification(r: LifecycleRecord): boolean {
  const m = r.lifecycle.meaning;
  return m.known && m.operation.role === "consent-verification";
}

/** The base operation name (a purpose after a dot dropped), as verifications and processing name it. */
function baseOperation(name: string): string {
  const dot = name.indexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * The verification that lets the processing at `at` (its index in `ordered`) through for
 * `purpose`, or undefined: the last verification for that purpose recorded before it and after
 * the grant then in force (a verification made under an earlier grant, superseded by a
 * revocation and a new grant, does not count), naming the processing's operation or none.
 */
export function verificationBefore(
  ordered: readonly LifecycleRecord[],
  purpose: string,
  at: number,
): string | undefined {
  // The processing's own tenancy decides its consent, and only its own verifications count.
  const tenant = ordered[at]?.tenant;
  const grant = consentOf(ordered, purpose, at, tenant);
  if (grant.state !== "granted" || !grant.decided_by) return undefined;
  const operation = baseOperation(ordered[at]?.lifecycle.name ?? "");
  let found: string | undefined;
  let afterGrant = false;
  for (const r of ordered.slice(0, at)) {
    if (r.identity === grant.decided_by) {
      afterGrant = true;
      found = undefined;
      continue;
    }
    if (!afterGrant || r.tenant !== tenant || !isVerification(r) || !r.lifecycle.purposes.includes(purpose))
      continue;
    const named = recordAttributes(r.record)[LIFECYCLE_ATTRIBUTES.verifiedOperation];
    if (typeof named === "string" && named !== "" && baseOperation(named) !== operation) continue;
    found = r.identity;
  }
  return found;
}
