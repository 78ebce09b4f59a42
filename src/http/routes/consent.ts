import { ApiError } from "../../core/api/api-error.js";
import { pathUuid } from "../../core/api/ids.js";
import { buildConsent } from "../../verify/lookup/consent-build.js";
import { LookupError } from "../../verify/lookup/public-api.js";
import { callersApi } from "../callers-api.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { consentOut, consentQuery } from "../schemas/consent.js";

/** Consent as state derived from the log (docs/vcon-lifecycle.md, §2). */
export function consentRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/consent/vcons/{uuid}",
    group: "lifecyclev1",
    auth: "token",
    summary:
      "A vCon's consent per purpose (granted, revoked or never asked), derived from the records you may read, with each consent record and its receipt",
    query: consentQuery,
    response: consentOut,
    handler: async ({ params, query, req }) => {
      const uuid = pathUuid(params.uuid, "vCon");
      try {
        return await buildConsent(callersApi(req, d.ctx.baseUrl), uuid, query.purpose);
      } catch (err) {
        if (err instanceof LookupError && err.status === 429)
          throw new ApiError("rate_limited", `deriving the consent went over the rate limit: ${err.message}`);
        // What the caller cannot read is not found, as a list would answer.
        if (err instanceof LookupError) throw new ApiError("not_found", err.message);
        throw err;
      }
    },
  });
}
