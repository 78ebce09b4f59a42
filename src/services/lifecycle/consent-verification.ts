import type { Ctx, Principal } from "../../context.js";
import type { PurposeConsent } from "../../formats/lifecycle/consent.js";
import { consentOf, lifecycleOrder } from "../../formats/lifecycle/consent.js";
import { LIFECYCLE_ATTRIBUTES } from "../../formats/lifecycle/vocabulary.js";
import { adminView } from "../access/access-view.js";
import { writeViewFor } from "../access/caller-view.js";
import { createAssetEvent } from "../records/asset-events.js";
import { recordsOfVcon } from "./erasure-targets.js";

/** The verification's operation (vocabulary: ours, the draft asks for the record and names none). */
const VERIFIED = "vcon_consent_verified";

export interface VerificationAnswer {
  vcon: string;
  purpose: string;
  state: PurposeConsent["state"];
  decided_by?: string;
  /** The `vcon_consent_verified` record written, when consent was granted; null otherwise. */
  verification: string | null;
}

/**
 * Records that consent for `purpose` was verified before `operation` (a processor's or the
 * consent gate's check), on the asset of the grant found in force, so that the record sits in the
 * log before the processing it lets through is recorded. `consent` is the derivation the route
 * made from what the caller may read; nothing is recorded unless it says granted. Writing needs
 * the caller's write access to that asset, as any event does.
 */
export async function recordConsentVerification(
  ctx: Pick<Ctx, "db" | "reads" | "config" | "caches" | "writePath">,
  p: Principal,
  uuid: string,
  consent: PurposeConsent,
  operation: string,
): Promise<VerificationAnswer> {
  const base = {
    vcon: `vcon://${uuid}`,
    purpose: consent.purpose,
    state: consent.state,
    ...(consent.decided_by ? { decided_by: consent.decided_by } : {}),
  };
  const grant = consent.decided_by;
  if (consent.state !== "granted" || !grant) return { ...base, verification: null };
  // The caller's view may hide a revocation its policy cannot read: the tenancy's whole view
  // must find the same grant in force before anything is recorded. What the caller may not read
  // stays unnamed; that consent is not granted is said.
  const whole = consentOf(
    lifecycleOrder(await recordsOfVcon(ctx, adminView(p.tenantId), uuid)),
    consent.purpose,
    undefined,
    `tenant/${p.tenantId}`,
  );
  if (whole.state !== "granted" || whole.decided_by !== grant)
    return {
      vcon: base.vcon,
      purpose: consent.purpose,
      state: whole.state,
      verification: null,
    };
  const asset = /^assets\/([^/]+)\/events\//.exec(grant)?.[1] ?? "";
  const record = await createAssetEvent(ctx, p, await writeViewFor(ctx, p), asset, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: {
      arc_display_type: VERIFIED,
      vcon_operation: `${VERIFIED}.${consent.purpose}`,
      subject: `vcon://${uuid}`,
      [LIFECYCLE_ATTRIBUTES.purpose]: consent.purpose,
      [LIFECYCLE_ATTRIBUTES.verifiedOperation]: operation,
      [LIFECYCLE_ATTRIBUTES.verifiedGrant]: grant,
    },
  });
  return { ...base, verification: record.identity };
}
