import { createRemoteJWKSet, customFetch, decodeJwt, type JWTPayload, jwtVerify } from "jose";
import { z } from "zod";
import type { Ctx, Principal } from "../../context.js";
import { ApiError } from "../../errors/api-error.js";
import { isUuid } from "../../formats/ids.js";
import { readBounded } from "../../net/bounded-body.js";
import { getApplication } from "../../store/identity/applications.js";
import { getMemberByEmail } from "../../store/identity/members.js";
import { isRootPrincipal } from "../../store/identity/root-principals.js";
import { listTenancies } from "../../store/identity/tenancies.js";
import { tokenVerifyKeys } from "./token-keys.js";
import { appIdpIssuer, tokenAudience } from "./tokens.js";

// A JWKS is a few keys: an issuer's answer is read up to this (jose's own deadline bounds the time).
const MAX_JWKS_BYTES = 256 * 1024;

/** jose's fetch of an OIDC issuer's JWKS, its body read no further than MAX_JWKS_BYTES. */
async function boundedFetch(url: string, options: RequestInit): Promise<Response> {
  const res = await fetch(url, options);
  const body = await readBounded(res, MAX_JWKS_BYTES, `the JWKS at ${url}`);
  return new Response(body.length > 0 ? body : null, { status: res.status, headers: res.headers });
}

const unauth = (message: string) => new ApiError("unauthenticated", message);

// The signature says who wrote a token, not that its claims have the types the code reads:
// they are checked too, so a wrongly typed claim is a 401, never a 500 further in.
const commonClaims = {
  iss: z.string().min(1),
  exp: z.number().finite(),
  nbf: z.number().finite().optional(),
  iat: z.number().finite().optional(),
};
const applicationClaims = z.looseObject({ ...commonClaims, sub: z.string().refine(isUuid) });
const memberClaims = z.looseObject({
  ...commonClaims,
  sub: z.string().optional(),
  email: z.string().optional(),
  groups: z.array(z.string()).optional(),
});

function checkedClaims(payload: JWTPayload, ours: boolean): JWTPayload {
  const r = (ours ? applicationClaims : memberClaims).safeParse(payload);
  if (!r.success)
    throw unauth(
      `token claims are malformed: ${r.error.issues.map((i) => i.path.join(".") || "claims").join(", ")}`,
    );
  return payload;
}

// Verifying RS256 costs ~0.1 ms and the principal lookup a query; clients reuse a
// token for an hour, so both are cached. Principal lookups live briefly so that a
// deleted application or a deactivated member is refused within a second everywhere.
const PRINCIPAL_TTL_MS = 1000;
const MAX_CACHED = 20_000;

interface Cached {
  claims: JWTPayload;
  principal?: Principal;
  principalAt?: number;
  /** The look-up under way: the requests that find the principal stale together wait for one. */
  resolving?: Promise<Principal> | undefined;
}

/** Turns bearer tokens into principals: our own app tokens, and members' tokens from a trusted OIDC issuer. */
export class Authenticator {
  private readonly cache = new Map<string, Cached>();
  /**
   * The last header answered and its entry. A pipeline sends one token for its hour: comparing the
   * header with the last one costs a compare, where the regular expression and the map's hash of
   * a fresh ~800-character string cost ~1.5 µs a request. Dropped whenever the map forgets its
   * entry; an invalidation reaches that entry in the map.
   */
  private last: { header: string; token: string; entry: Cached } | undefined;
  private readonly remoteKeys = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  /** Counts invalidations, so a look-up that straddles one does not keep its answer. */
  private generation = 0;

  constructor(private readonly ctx: Pick<Ctx, "baseUrl" | "db" | "keys">) {}

  /** Forgets cached principals (after a delete, deactivation or role change in this process). */
  invalidate(): void {
    this.generation++;
    for (const c of this.cache.values()) {
      c.principal = undefined;
      c.resolving = undefined;
    }
  }

  /**
   * The caller `authenticate` would answer for `header`, when that is the header last answered,
   * its token has not expired and its principal was looked up less than a second ago; else
   * undefined, and `authenticate` decides. Lets the route gate settle a pipeline's requests
   * without a promise (two async functions and Fastify's wait for them, per request).
   */
  cached(header: string | undefined): Principal | undefined {
    const last = this.last;
    if (header === undefined || last === undefined || last.header !== header) return undefined;
    const { claims, principal, principalAt } = last.entry;
    const now = Date.now();
    if ((claims.exp ?? 0) <= now / 1000 || !principal || now - (principalAt ?? 0) >= PRINCIPAL_TTL_MS)
      return undefined;
    return principal;
  }

  /** Verifies `authorization: Bearer <jwt>` and resolves the caller; 401 on any failure. */
  async authenticate(header: string | undefined): Promise<Principal> {
    if (!header) throw unauth("authorization header is missing");
    const last = this.last;
    let token: string;
    let entry: Cached | undefined;
    if (last !== undefined && last.header === header) ({ token, entry } = last);
    else {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m?.[1]) throw unauth("authorization header must be 'Bearer <token>'");
      token = m[1];
      entry = this.cache.get(token);
    }
    const nowSec = Date.now() / 1000;
    if (entry && (entry.claims.exp ?? 0) <= nowSec) {
      this.cache.delete(token);
      this.last = undefined;
      throw unauth("token has expired");
    }
    if (!entry) {
      const claims = await this.verify(token);
      // Requests that arrived together with a new token verified it side by side: they share
      // the entry the first of them stored, and with it its principal's look-up.
      entry = this.cache.get(token);
      if (!entry) {
        entry = { claims };
        if (this.cache.size >= MAX_CACHED) {
          this.cache.clear();
          this.last = undefined;
        }
        this.cache.set(token, entry);
      }
    }
    if (last?.header !== header || last.entry !== entry) this.last = { header, token, entry };
    const fresh = entry.principal && Date.now() - (entry.principalAt ?? 0) < PRINCIPAL_TTL_MS;
    if (fresh) return entry.principal as Principal;
    // Every request in flight when the second lapses would otherwise look the principal up
    // again (32 in flight read it ~25 times a second); they share one look-up, started after
    // the lapse, so each still gets an answer no older than the second.
    entry.resolving ??= this.refresh(entry);
    return entry.resolving;
  }

  private async refresh(entry: Cached): Promise<Principal> {
    // A look-up that was under way when the cache was invalidated may have read what the
    // change replaced: its answer goes to the requests that waited for it, and is not kept.
    const generation = this.generation;
    try {
      const principal = await this.resolve(entry.claims);
      if (generation === this.generation) {
        entry.principal = principal;
        entry.principalAt = Date.now();
      }
      return principal;
    } finally {
      // After an invalidation the entry's look-up, if any, is a newer one: it is left alone.
      if (generation === this.generation) entry.resolving = undefined;
    }
  }

  private async verify(token: string): Promise<JWTPayload> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw unauth("token is malformed");
    }
    const ours = appIdpIssuer(this.ctx.baseUrl);
    try {
      if (unverified.iss === ours) {
        const r = await jwtVerify(token, await tokenVerifyKeys(this.ctx.keys), {
          issuer: ours,
          audience: tokenAudience(this.ctx.baseUrl),
          algorithms: ["RS256"],
          requiredClaims: ["exp", "sub"],
        });
        return checkedClaims(r.payload, true);
      }
      const jwks = await this.remoteKeysFor(unverified.iss);
      const r = await jwtVerify(token, jwks, { issuer: unverified.iss as string, requiredClaims: ["exp"] });
      return checkedClaims(r.payload, false);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const code = (err as { code?: string }).code;
      throw unauth(
        code === "ERR_JWT_EXPIRED" ? "token has expired" : "token signature or claims are invalid",
      );
    }
  }

  private async remoteKeysFor(issuer: string | undefined) {
    if (!issuer) throw unauth("token has no issuer");
    const tenancy = (await listTenancies(this.ctx.db)).find((t) => t.oidc?.issuer === issuer);
    if (!tenancy?.oidc) throw unauth("token issuer is not trusted");
    let jwks = this.remoteKeys.get(tenancy.oidc.jwks_url);
    if (!jwks) {
      jwks = createRemoteJWKSet(new URL(tenancy.oidc.jwks_url), { [customFetch]: boundedFetch });
      this.remoteKeys.set(tenancy.oidc.jwks_url, jwks);
    }
    return jwks;
  }

  private async resolve(claims: JWTPayload): Promise<Principal> {
    const ours = appIdpIssuer(this.ctx.baseUrl);
    return claims.iss === ours ? this.resolveApplication(claims, ours) : this.resolveMember(claims);
  }

  private async resolveApplication(claims: JWTPayload, issuer: string): Promise<Principal> {
    const app = claims.sub ? await getApplication(this.ctx.db, claims.sub) : undefined;
    if (!app) throw unauth("the application of this token no longer exists");
    const root = await isRootPrincipal(this.ctx.db, app.tenant_id, issuer, app.id);
    return {
      tenantId: app.tenant_id,
      kind: "application",
      id: app.id,
      issuer,
      subject: app.id,
      displayName: app.display_name,
      email: "",
      claims: { ...claims },
      roles: app.roles,
      isAdmin: root || app.roles.some((r) => r.toLowerCase() === "owner"),
    };
  }

  private async resolveMember(claims: JWTPayload): Promise<Principal> {
    const email = typeof claims.email === "string" ? claims.email : "";
    const tenancy = (await listTenancies(this.ctx.db)).find((t) => t.oidc?.issuer === claims.iss);
    const member = tenancy && email ? await getMemberByEmail(this.ctx.db, tenancy.id, email) : undefined;
    if (!tenancy || !member) throw unauth("no member of a tenancy matches this token");
    if (!member.active) throw unauth("member is deactivated");
    const subject = String(claims.sub ?? "");
    const root = await isRootPrincipal(this.ctx.db, tenancy.id, String(claims.iss), subject);
    const groups = Array.isArray(claims.groups) ? claims.groups.map(String) : [];
    return {
      tenantId: tenancy.id,
      kind: "member",
      id: member.id,
      issuer: String(claims.iss),
      subject,
      displayName: member.display_name,
      email: member.email,
      claims: { ...claims, groups },
      roles: member.roles,
      isAdmin: root || member.roles.includes("OWNER"),
    };
  }
}
