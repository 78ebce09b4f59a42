import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import {
  type ApplicationRow,
  applicationRows,
  countApplications,
  deleteApplication,
  getApplication,
  insertApplication,
  updateApplication,
} from "../../store/identity/applications.js";
import { adminCollection } from "../admin-collection.js";
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

const applications = adminCollection({
  forbidden: "owner privileges are needed to manage application registrations",
  item: "application",
  out: (row: ApplicationRow) => applicationOut(row),
  // Looked up by id alone, as a token's client id is: one of another tenancy is as absent as none.
  get: async (db, tenantId, id) => {
    const row = await getApplication(db, id);
    return row?.tenant_id === tenantId ? row : undefined;
  },
  delete: deleteApplication,
  list: (db, tenantId, pairs) =>
    applicationRows(db, tenantId, { displayName: valuesOf(pairs, "display_name") }),
  quota: { key: "applications", label: "applications", count: countApplications },
});

/** The fields of a secret made now: its hash and the two years it is valid for. */
function freshSecret(secret: string) {
  const now = new Date();
  return {
    secret_hash: hashGeneratedSecret(secret),
    valid_from: now,
    valid_until: new Date(now.getTime() + SECRET_LIFETIME_MS),
  };
}

export interface ApplicationInput {
  display_name: string;
  custom_claims?: Record<string, string> | undefined;
  roles?: string[] | undefined;
}

/** Creates an application with a fresh secret, under the tenancy's quota. */
export async function createApplication(ctx: Pick<Ctx, "db">, p: Principal, input: ApplicationInput) {
  applications.requireAdmin(p);
  validateCustomClaims(input.custom_claims);
  const secret = newSecret();
  const row = await applications.insertUnderQuota(ctx.db, p.tenantId, (tx) =>
    insertApplication(tx, {
      id: randomUUID(),
      tenant_id: p.tenantId,
      display_name: input.display_name,
      custom_claims: input.custom_claims ?? {},
      roles: input.roles ?? [],
      ...freshSecret(secret),
    }),
  );
  return applicationOut(row, secret);
}

/** Reads one application of the caller's tenancy (404 for any other). */
export const readApplication = applications.read;

/** The tenancy's application registrations an administrator lists, filtered by the query. */
export const applicationSource = applications.source;

/** PATCH: each field sent replaces the stored one whole. */
export const patchApplication = applications.patcher((db, tenantId, id, patch: Partial<ApplicationInput>) => {
  validateCustomClaims(patch.custom_claims);
  return updateApplication(db, tenantId, id, patch);
});

/** Replaces the secret: the old one stops working at once; issued tokens stay valid. */
export async function regenerateSecret(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  const secret = newSecret();
  const row = await applications.write(ctx, p, (db, tenantId) =>
    updateApplication(db, tenantId, id, freshSecret(secret)),
  );
  return applicationOut(row, secret);
}

export const removeApplication = applications.remove;
