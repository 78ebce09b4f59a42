import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

export interface SubjectRow {
  seq: number;
  tenant_id: string;
  id: string;
  display_name: string;
  wallet_pub_key: string[];
  tessera_pub_key: string[];
  wallet_address: string[];
  confirmation_status: string;
  /** The other organisation's tenant identity, when the subject was imported from its subject string. */
  tenant: string;
}

const COLUMNS =
  "seq, tenant_id, id, display_name, wallet_pub_key, tessera_pub_key, wallet_address, confirmation_status, tenant";

export async function getSubject(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<SubjectRow | undefined> {
  return (
    await db.query<SubjectRow>(`select ${COLUMNS} from subjects where tenant_id = $1 and id = $2`, [
      tenantId,
      id,
    ])
  )[0];
}

export interface SubjectFilter {
  displayName?: string[] | undefined;
  walletAddress?: string[] | undefined;
  confirmationStatus?: string[] | undefined;
}

/** A tenancy's subjects; each filter matches any of its values. */
export function subjectRows(db: Queryable, tenantId: string, f: SubjectFilter): RowSource<SubjectRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  anyOf(w, "display_name", f.displayName);
  if (f.walletAddress?.length)
    w.and(
      `exists (select 1 from jsonb_array_elements_text(wallet_address) a where lower(a) = any(${w.p(f.walletAddress.map((a) => a.toLowerCase()))}::text[]))`,
    );
  anyOf(w, "confirmation_status", f.confirmationStatus);
  return keysetSource(db, "subjects", COLUMNS, w);
}

/** The parameters $1..$6 of a subject insert: its tenancy, id, name and keys (JSON). */
function subjectParams(s: Omit<SubjectRow, "seq" | "tenant" | "confirmation_status">): unknown[] {
  return [
    s.tenant_id,
    s.id,
    s.display_name,
    JSON.stringify(s.wallet_pub_key),
    JSON.stringify(s.tessera_pub_key),
    JSON.stringify(s.wallet_address),
  ];
}

export async function insertSubject(db: Queryable, s: Omit<SubjectRow, "seq">): Promise<SubjectRow> {
  const rows = await db.query<SubjectRow>(
    `insert into subjects (tenant_id, id, display_name, wallet_pub_key, tessera_pub_key, wallet_address, confirmation_status, tenant)
     values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8) returning ${COLUMNS}`,
    [...subjectParams(s), s.confirmation_status, s.tenant],
  );
  return rows[0] as SubjectRow;
}

/** Inserts a subject unless one with its id exists in the tenancy (the Self subject, made once). */
export async function ensureSubject(
  db: Queryable,
  s: Omit<SubjectRow, "seq" | "tenant" | "confirmation_status">,
): Promise<void> {
  await db.query(
    `insert into subjects (tenant_id, id, display_name, wallet_pub_key, tessera_pub_key, wallet_address, confirmation_status)
     values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, 'CONFIRMED') on conflict do nothing`,
    subjectParams(s),
  );
}

/** Writes the given fields; undefined when the subject is not in that tenancy. */
export async function updateSubject(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<Pick<SubjectRow, "display_name" | "wallet_pub_key" | "tessera_pub_key" | "wallet_address">>,
): Promise<SubjectRow | undefined> {
  const json = (v: string[] | undefined) => (v ? JSON.stringify(v) : null);
  const rows = await db.query<SubjectRow>(
    `update subjects set
       display_name = coalesce($3, display_name),
       wallet_pub_key = coalesce($4::jsonb, wallet_pub_key),
       tessera_pub_key = coalesce($5::jsonb, tessera_pub_key),
       wallet_address = coalesce($6::jsonb, wallet_address)
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [
      tenantId,
      id,
      patch.display_name ?? null,
      json(patch.wallet_pub_key),
      json(patch.tessera_pub_key),
      json(patch.wallet_address),
    ],
  );
  return rows[0];
}

export async function deleteSubject(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("delete from subjects where tenant_id = $1 and id = $2 returning id", [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
