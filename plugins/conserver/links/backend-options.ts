import type { DeliveryBackend } from "../delivery/job.js";
import { ConserverError } from "../errors.js";
import { isRecord } from "../vcon.js";
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
  const [creds, where, apiUrl, tokenKey] = isRecord(o.backend)
    ? [o.backend, "backend.", required(o.backend, "url", "backend.", link), "token_url"]
    : [pythonAuth(o, link), "auth.", required(o, "api_url", "", link), "token_endpoint"];
  const tokenUrl = optString(creds, tokenKey, link);
  return {
    url: baseUrl(apiUrl),
    clientId: required(creds, "client_id", where, link),
    clientSecret: required(creds, "client_secret", where, link),
    ...(tokenUrl ? { tokenUrl } : {}),
    ...(partnerId && partnerId !== "not-set" ? { partnerId } : {}),
  };
}

/** The Python DataTrails link's `auth:` mapping (OIDC client credentials only). */
function pythonAuth(o: Record<string, unknown>, link: string): Record<string, unknown> {
  if (!isRecord(o.auth))
    throw new ConserverError("LINK_OPTIONS", `${link}: option backend (or api_url and auth) is required`);
  const type = optString(o.auth, "type", link) ?? "oidc-client-credentials";
  if (type.toLowerCase() !== "oidc-client-credentials")
    throw new ConserverError(
      "LINK_OPTIONS",
      `${link}: auth.type ${type} is not supported (OIDC-client-credentials)`,
    );
  return o.auth;
}
