import type { Queryable } from "../drivers/db.js";
import { tenantTable } from "../query/tenant-table.js";

export interface ApplicationRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  custom_claims: Record<string, string>;
  roles: string[];
  secret_hash: string;
  valid_from: Date;
  valid_until: Date;
}

const table = tenantTable<ApplicationRow, ApplicationPatchable>({
  table: "applications",
  columns: [
    "seq",
    "id",
    "tenant_id",
    "display_name",
    "custom_claims",
    "roles",
    "secret_hash",
    "valid_from",
    "valid_until",
  ],
  json: ["custom_claims", "roles"],
  patchable: ["display_name", "custom_claims", "roles", "secret_hash", "valid_from", "valid_until"],
});
type ApplicationPatchable =
  | "display_name"
  | "custom_claims"
  | "roles"
  | "secret_hash"
  | "valid_from"
  | "valid_until";

/** One application by id in any tenancy (a token names its client by id alone). */
export const getApplication = (db: Queryable, id: string) => table.one(db, "id = $1", [id]);

/** A tenancy's application registrations, optionally by display name. */
export const applicationRows = table.byDisplayName;

export const countApplications = table.count;
export const insertApplication = table.insert;
/** Writes the given fields; returns the updated row, or undefined when it is not in that tenancy. */
export const updateApplication = table.update;
export const deleteApplication = table.remove;
