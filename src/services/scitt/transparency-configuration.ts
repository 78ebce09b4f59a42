import type { Ctx } from "../../context.js";
import { VDS_MMR, VDS_RFC9162 } from "../../core/cose/index.js";

/**
 * The SCRAPI transparency configuration of the service, or of one tenancy's log under
 * `/tenants/<uuid>`: where to register, where the keys are, and which receipt profiles it
 * issues (the first is what `/entries` answers when the request names none).
 */
export function transparencyConfiguration(ctx: Pick<Ctx, "config">, prefix: string) {
  const base = `${ctx.config.baseUrl}${prefix}`;
  const profiles =
    ctx.config.scrapiReceiptProfile === "rfc9162" ? [VDS_RFC9162, VDS_MMR] : [VDS_MMR, VDS_RFC9162];
  return {
    issuer: ctx.config.baseUrl,
    registration_endpoint: `${base}/entries`,
    jwks_uri: `${ctx.config.baseUrl}/jwks`,
    scitt_keys_uri: `${ctx.config.baseUrl}/.well-known/scitt-keys`,
    supported_signature_algorithms: ["ES256"],
    receipt_media_type: "application/scitt-receipt+cose",
    verifiable_data_structures: profiles,
    default_verifiable_data_structure: profiles[0] as number,
    registration_by_signature: prefix !== "" || ctx.config.scittPublicLog !== undefined,
  };
}
