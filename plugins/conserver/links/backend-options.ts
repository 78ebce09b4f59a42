import type { DeliveryBackend } from "../delivery/job.js";
import { ConserverError } from "../errors.js";
import { isRecord } from "../vcon/unsigned-check.js";
import { optString } from "./options.js";

function required(o: Record<string, unknown>, key: string, where: string, link: string): string {
  const v = optString(o, key, link);
  if (!v) throw new ConserverError("LINK_OPTIONS", `${link}: option ${where}${key} is required`);
  return v;
}

/** Python DataTrails options name `api_url` ending in `/archivist`; our paths carry that segment. */
function baseUrl(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, "").replace(/\/archivist$/, "");
}

/**
 * The backend a link delivers to: `backend: {url, client_id, client_secret, token_url?}`, or the
 * Python DataTrails link's `api_url` + `auth: {type, token_endpoint, client_id, client_secret}`.
 */
export function backendFromOptions(o: Record<string, unknown>, link: string): DeliveryBackend {
  const partnerId = optString(o, "partner_id", link);
  const partner = partnerId && partnerId !== "not-set" ? { partnerId } : {};
  if (isRecord(o.backend)) {
    const b = o.backend;
    const tokenUrl = optString(b, "token_url", link);
    return {
      url: baseUrl(required(b, "url", "backend.", link)),
      clientId: required(b, "client_id", "backend.", link),
      clientSecret: required(b, "client_secret", "backend.", link),
      ...(tokenUrl ? { tokenUrl } : {}),
      ...partner,
    };
  }
  if (!isRecord(o.auth))
    throw new ConserverError("LINK_OPTIONS", `${link}: option backend (or api_url and auth) is required`);
  const auth = o.auth;
  const type = optString(auth, "type", link) ?? "oidc-client-credentials";
  if (type.toLowerCase() !== "oidc-client-credentials")
    throw new ConserverError(
      "LINK_OPTIONS",
      `${link}: auth.type ${type} is not supported (OIDC-client-credentials)`,
    );
  const tokenUrl = optString(auth, "token_endpoint", link);
  return {
    url: baseUrl(required(o, "api_url", "", link)),
    clientId: required(auth, "client_id", "auth.", link),
    clientSecret: required(auth, "client_secret", "auth.", link),
    ...(tokenUrl ? { tokenUrl } : {}),
    ...partner,
  };
}
