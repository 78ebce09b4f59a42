import { ApiError } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { buildConsent } from "../../lookup/consent-build.js";
import { LookupError } from "../../lookup/public-api.js";
import { recordConsentVerification } from "../../services/lifecycle/consent-verification.js";
import { callersApi } from "../callers-api.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { consentOut, consentQuery, verificationOut, verificationRequest } from "../schemas/consent.js";

/** Consent as state derived from the log (docs/vcon-lifecycle.md, §2). */
export function consentRoutes(t: RouteTable, d: HttpDeps): void {
  const derive = async (
    req: Parameters<typeof callersApi>[0],
    tenantId: string,
    uuid: string,
    purpose?: string,
  ) => {
    try {
      return await buildConsent(callersApi(req, d.ctx.baseUrl), uuid, `tenant/${tenantId}`, purpose);
    } catch (err) {
      if (err instanceof LookupError && err.status === 429)
        throw new ApiError("rate_limited", `deriving the consent went over the rate limit: ${err.message}`);
      // What the caller cannot read is not found, as a list would answer.
      if (err instanceof LookupError) throw new ApiError("not_found", err.message);
      throw err;
    }
  };
  t.add({
    method: "get",
    path: "/archivist/v1/consent/vcons/{uuid}",
    group: "lifecyclev1",
    auth: "token",
    summary:
      "A vCon's consent per purpose (granted, revoked or never asked), derived from the records you may read, with each consent record and its receipt",
    query: consentQuery,
    response: consentOut,
    handler: async ({ params, query, req, principal }) =>
      derive(req, principal.tenantId, pathUuid(params.uuid, "vCon"), query.purpose),
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
    handler: async ({ params, body, req, principal }) => {
      const uuid = pathUuid(params.uuid, "vCon");
      const answer = await derive(req, principal.tenantId, uuid, body.purpose);
      const consent = answer.consents[0] ?? { purpose: body.purpose, state: "never_asked", records: [] };
      return recordConsentVerification(d.ctx, principal, uuid, consent, body.operation);
    },
  });
}
