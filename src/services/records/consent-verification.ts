import type { Ctx, Principal } from "../../context.js";
import type { PurposeConsent } from "../../verify/primitives.js";
import { LIFECYCLE_ATTRIBUTES } from "../../verify/primitives.js";
import { writeViewFor } from "../access/caller-view.js";
import { createAssetEvent } from "./asset-events.js";

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
  ctx: Pick<Ctx, "db" | "caches" | "writePath">,
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
