import type { Principal } from "../../context.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { buildConsent } from "../../lookup/evidence/consent-build.js";
import { recordConsentVerification } from "../../services/lifecycle/consent-verification.js";
import { answerGathering, CallerEvidence } from "../caller-evidence.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { consentOut, consentQuery, verificationOut, verificationRequest } from "../schemas/consent.js";

/** Consent as state derived from the log (docs/vcon-lifecycle.md, §2). */
export function consentRoutes(t: RouteTable, d: HttpDeps): void {
  // Read in-process as the caller: the same records, receipts and rate as its own reads would be.
  const derive = (caller: Principal, uuid: string, purpose?: string) =>
    answerGathering("deriving the consent", () =>
      buildConsent(new CallerEvidence(d, caller), uuid, `tenant/${caller.tenantId}`, purpose),
    );
  t.add({
    method: "get",
    path: "/archivist/v1/consent/vcons/{uuid}",
    group: "lifecyclev1",
    auth: "token",
    summary:
      "A vCon's consent per purpose (granted, revoked or never asked), derived from the records you may read, with each consent record and its receipt",
    query: consentQuery,
    response: consentOut,
    handler: async ({ params, query, principal }) =>
      derive(principal, pathUuid(params.uuid, "vCon"), query.purpose),
  });
  t.add({
    method: "post",
    path: "/archivist/v1/consent/vcons/{uuid}/verifications",
    group: "lifecyclev1",
    auth: "token",
    summary:
      "Verify a vCon's consent for a purpose before a processing and, when granted, record the verification (vcon_consent_verified) before the processing is",
    body: verificationRequest,
    response: verificationOut,
    handler: async ({ params, body, principal }) => {
      const uuid = pathUuid(params.uuid, "vCon");
      const answer = await derive(principal, uuid, body.purpose);
      const consent = answer.consents[0] ?? { purpose: body.purpose, state: "never_asked", records: [] };
      return recordConsentVerification(d.ctx, principal, uuid, consent, body.operation);
    },
  });
}
