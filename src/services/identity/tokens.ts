import { randomUUID } from "node:crypto";
import { base64url } from "jose";
import type { Ctx } from "../../context.js";
import { FailureWindow } from "../../core/api/failure-window.js";
import { ApiError, badRequest } from "../../errors/api-error.js";
import { isUuid } from "../../formats/ids.js";
import type { LoadedKey } from "../../keys/keyring.js";
import { getApplication } from "../../store/identity/applications.js";
import { hashGeneratedSecret, newSecret, verifySecret } from "./secrets.js";
import { TOKEN_TTL_SECONDS } from "./token-keys.js";

/** Issuer of our application tokens. */
export const appIdpIssuer = (baseUrl: string) => `${baseUrl}/appidpv1`;
/** Audience of our application tokens. */
export const tokenAudience = (baseUrl: string) => `${baseUrl}/archivist`;

const invalidClient = () => new ApiError("unauthenticated", "invalid client credentials");

// Wrong secrets are limited per source address (ARCHIVIST_TRUSTED_PROXIES names the proxies
// whose X-Forwarded-For says which). Not per client id: ids are public (principal_accepted of
// public events), so a per-id window let anyone lock an application out from everywhere, and
// our secrets are 256 random bits, which no rate of guessing reaches anyway.
const WINDOW_MS = 60_000;
const byAddress = new FailureWindow(30, WINDOW_MS);

const tooManyFailures = (seconds: number) =>
  new ApiError("rate_limited", "too many failed token requests; try again later", [], {
    "Retry-After": String(seconds),
  });

/**
 * The client-credentials grant behind its guard: an address with too many recent failures is
 * refused (429, Retry-After) before any secret is checked.
 */
export async function guardedIssueToken(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys">,
  form: { grant_type?: string; client_id?: string; client_secret?: string },
  address: string,
): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
  const now = Date.now();
  const wait = byAddress.retryAfter(address, now);
  if (wait > 0) throw tooManyFailures(wait);
  try {
    return await issueToken(ctx, form);
  } catch (err) {
    if (err instanceof ApiError && err.kind === "unauthenticated") byAddress.fail(address, now);
    throw err;
  }
}

// Stored as the secrets we generate are (every application's made through the API, and the
// default tenancy's owner): an unknown id's refusal takes their wrong secret's time.
const dummyHash = hashGeneratedSecret(newSecret());

/**
 * Refuses the credentials after the same work as a wrong secret of an application whose secret
 * we generated (one HMAC), so how long a refusal takes does not tell which client ids exist.
 * An owner named in a bootstrap file, whose secret an operator chose, costs an scrypt instead:
 * its time tells that its id is one (ids are public anyway, docs/security.md).
 */
async function refuseAfterWork(secret: string): Promise<never> {
  await verifySecret(secret, dummyHash, new Map());
  throw invalidClient();
}

/**
 * An RS256 JWS in compact form, signed by whichever backend holds the token key (a PKCS#11 token
 * holds no KeyObject jose could sign with); verified with jose (`Authenticator`).
 */
async function signJwt(
  key: Pick<LoadedKey, "kid" | "sign">,
  claims: Record<string, unknown>,
): Promise<string> {
  const part = (v: unknown) => base64url.encode(JSON.stringify(v));
  const input = `${part({ alg: "RS256", typ: "at+jwt", kid: key.kid })}.${part(claims)}`;
  return `${input}.${base64url.encode(await key.sign(new TextEncoder().encode(input)))}`;
}

/** OIDC client-credentials grant: checks the secret, then signs an RS256 access token. */
async function issueToken(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys">,
  form: { grant_type?: string; client_id?: string; client_secret?: string },
): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
  if (!form.grant_type) throw badRequest("grant_type is required");
  if (form.grant_type !== "client_credentials") throw badRequest("grant_type must be client_credentials");
  if (!form.client_id) throw badRequest("client_id is required");
  if (!form.client_secret) throw badRequest("client_secret is required");
  const app = isUuid(form.client_id) ? await getApplication(ctx.db, form.client_id.toLowerCase()) : undefined;
  const now = Date.now();
  if (!app || now < app.valid_from.getTime() || now > app.valid_until.getTime())
    return refuseAfterWork(form.client_secret);
  if (!(await verifySecret(form.client_secret, app.secret_hash, ctx.caches.verifiedSecrets)))
    throw invalidClient();
  const key = await ctx.keys.get("token", "RS256");
  const iat = Math.floor(now / 1000);
  const claims = {
    ...app.custom_claims,
    jit_tenant_id: `tenant/${app.tenant_id}`,
    jit_tier: "ENTERPRISE",
    name: app.display_name,
    client_id: app.id,
    iss: appIdpIssuer(ctx.baseUrl),
    aud: tokenAudience(ctx.baseUrl),
    sub: app.id,
    jti: randomUUID(),
    iat,
    exp: iat + TOKEN_TTL_SECONDS,
  };
  return { access_token: await signJwt(key, claims), token_type: "Bearer", expires_in: TOKEN_TTL_SECONDS };
}
