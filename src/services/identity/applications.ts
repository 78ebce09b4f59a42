import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import {
  type ApplicationRow,
  applicationRows,
  countApplications,
  deleteApplication,
  getApplication,
  insertApplication,
  updateApplication,
} from "../../store/applications.js";
import type { Queryable } from "../../store/db.js";
import type { RowSource } from "../../store/row-source.js";
import { lockTenancy } from "../../store/tenancies.js";
import { badRequest, forbidden, isoTime, notFound, quotaExceeded } from "../../verify/primitives.js";
import { valuesOf } from "../records/list-query.js";
import { hashGeneratedSecret, newSecret } from "./secrets.js";

// A secret is valid for two years; tokens outlive neither the secret rules nor this.
const SECRET_LIFETIME_MS = 2 * 365 * 24 * 3600 * 1000;

const REGISTERED_CLAIMS = new Set([
  "iss",
  "sub",
  "aud",
  "exp",
  "nbf",
  "iat",
  "jti",
  "azp",
  "scope",
  "client_id",
  "name",
  "email",
  "typ",
  "cnf",
  "auth_time",
  "nonce",
  "acr",
  "amr",
  "sid",
  "act",
  "may_act",
  "roles",
  "groups",
  "entitlements",
]);

/** Refuses custom claim names that would collide with ours or with registered JWT claims. */
function validateCustomClaims(claims: Record<string, string> | undefined): void {
  for (const name of Object.keys(claims ?? {})) {
    const lower = name.toLowerCase();
    if (lower.startsWith("jit_") || lower.startsWith("arc_"))
      throw badRequest(`custom claim ${name} uses a reserved prefix (jit_ or arc_)`);
    if (REGISTERED_CLAIMS.has(lower)) throw badRequest(`custom claim ${name} is a registered JWT claim name`);
  }
}

function requireAdmin(p: Principal): void {
  if (!p.isAdmin) throw forbidden("owner privileges are needed to manage application registrations");
}

/** API shape of an application; the secret only when it was just made. */
export function applicationOut(row: ApplicationRow, secret = "") {
  return {
    identity: `applications/${row.id}`,
    client_id: row.id,
    display_name: row.display_name,
    tenant_id: `tenant/${row.tenant_id}`,
    custom_claims: row.custom_claims,
    roles: row.roles,
    credentials: [{ secret, valid_from: isoTime(row.valid_from), valid_until: isoTime(row.valid_until) }],
  };
}

/** Creates an application with a fresh secret, under the tenancy's quota. */
export async function createApplication(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  input: {
    display_name: string;
    custom_claims?: Record<string, string> | undefined;
    roles?: string[] | undefined;
  },
) {
  requireAdmin(p);
  validateCustomClaims(input.custom_claims);
  const secret = newSecret();
  const secret_hash = hashGeneratedSecret(secret);
  const row = await ctx.db.transaction(async (tx) => {
    await enforceQuota(tx, p.tenantId);
    const now = new Date();
    return insertApplication(tx, {
      id: randomUUID(),
      tenant_id: p.tenantId,
      display_name: input.display_name,
      custom_claims: input.custom_claims ?? {},
      roles: input.roles ?? [],
      secret_hash,
      valid_from: now,
      valid_until: new Date(now.getTime() + SECRET_LIFETIME_MS),
    });
  });
  return applicationOut(row, secret);
}

async function enforceQuota(tx: Queryable, tenantId: string): Promise<void> {
  const tenancy = await lockTenancy(tx, tenantId);
  const limit = tenancy?.quotas.applications;
  if (limit !== undefined && (await countApplications(tx, tenantId)) >= limit)
    throw quotaExceeded("applications", limit);
}

/** Reads one application of the caller's tenancy (404 for any other). */
export async function readApplication(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  requireAdmin(p);
  const row = await getApplication(ctx.db, id);
  if (!row || row.tenant_id !== p.tenantId) throw notFound("application");
  return applicationOut(row);
}

/** The tenancy's application registrations an administrator lists, filtered by the query. */
export function applicationSource(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  pairs: Array<[string, string]>,
): RowSource<ApplicationRow> {
  requireAdmin(p);
  return applicationRows(ctx.db, p.tenantId, { displayName: valuesOf(pairs, "display_name") });
}

/** PATCH: each field sent replaces the stored one whole. */
export async function patchApplication(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  id: string,
  patch: {
    display_name?: string | undefined;
    custom_claims?: Record<string, string> | undefined;
    roles?: string[] | undefined;
  },
) {
  requireAdmin(p);
  validateCustomClaims(patch.custom_claims);
  const row = await updateApplication(ctx.db, p.tenantId, id, patch);
  if (!row) throw notFound("application");
  return applicationOut(row);
}

/** Replaces the secret: the old one stops working at once; issued tokens stay valid. */
export async function regenerateSecret(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  requireAdmin(p);
  const secret = newSecret();
  const now = new Date();
  const row = await updateApplication(ctx.db, p.tenantId, id, {
    secret_hash: hashGeneratedSecret(secret),
    valid_from: now,
    valid_until: new Date(now.getTime() + SECRET_LIFETIME_MS),
  });
  if (!row) throw notFound("application");
  return applicationOut(row, secret);
}

export async function removeApplication(ctx: Pick<Ctx, "db">, p: Principal, id: string): Promise<void> {
  requireAdmin(p);
  if (!(await deleteApplication(ctx.db, p.tenantId, id))) throw notFound("application");
}
