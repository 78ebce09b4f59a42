import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

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

const COLUMNS =
  "seq, id, tenant_id, display_name, custom_claims, roles, secret_hash, valid_from, valid_until";

export async function getApplication(db: Queryable, id: string): Promise<ApplicationRow | undefined> {
  return (await db.query<ApplicationRow>(`select ${COLUMNS} from applications where id = $1`, [id]))[0];
}

/** A tenancy's application registrations, optionally by display name. */
export function applicationRows(
  db: Queryable,
  tenantId: string,
  f: { displayName?: string[] | undefined },
): RowSource<ApplicationRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  return keysetSource(db, "applications", COLUMNS, anyOf(w, "display_name", f.displayName));
}

export async function countApplications(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "select count(*)::int as n from applications where tenant_id = $1",
    [tenantId],
  );
  return rows[0]?.n ?? 0;
}

export async function insertApplication(
  db: Queryable,
  a: Omit<ApplicationRow, "seq">,
): Promise<ApplicationRow> {
  const rows = await db.query<ApplicationRow>(
    `insert into applications (id, tenant_id, display_name, custom_claims, roles, secret_hash, valid_from, valid_until)
     values ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8) returning ${COLUMNS}`,
    [
      a.id,
      a.tenant_id,
      a.display_name,
      JSON.stringify(a.custom_claims),
      JSON.stringify(a.roles),
      a.secret_hash,
      a.valid_from,
      a.valid_until,
    ],
  );
  return rows[0] as ApplicationRow;
}

/** Writes the given fields; returns the updated row, or undefined when it is not in that tenancy. */
export async function updateApplication(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<
    Pick<
      ApplicationRow,
      "display_name" | "custom_claims" | "roles" | "secret_hash" | "valid_from" | "valid_until"
    >
  >,
): Promise<ApplicationRow | undefined> {
  const rows = await db.query<ApplicationRow>(
    `update applications set
       display_name = coalesce($3, display_name),
       custom_claims = coalesce($4::jsonb, custom_claims),
       roles = coalesce($5::jsonb, roles),
       secret_hash = coalesce($6, secret_hash),
       valid_from = coalesce($7, valid_from),
       valid_until = coalesce($8, valid_until)
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [
      tenantId,
      id,
      patch.display_name ?? null,
      patch.custom_claims ? JSON.stringify(patch.custom_claims) : null,
      patch.roles ? JSON.stringify(patch.roles) : null,
      patch.secret_hash ?? null,
      patch.valid_from ?? null,
      patch.valid_until ?? null,
    ],
  );
  return rows[0];
}

export async function deleteApplication(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("delete from applications where tenant_id = $1 and id = $2 returning id", [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
