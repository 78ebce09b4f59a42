import type { Queryable } from "../drivers/db.js";
import { anyOf, type RowSource } from "../query/row-source.js";
import { tenantTable } from "../query/tenant-table.js";

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

type SubjectPatchable = "display_name" | "wallet_pub_key" | "tessera_pub_key" | "wallet_address";
/** The key lists and their addresses, stored as jsonb. */
const KEYS = ["wallet_pub_key", "tessera_pub_key", "wallet_address"] as const;
const table = tenantTable<SubjectRow, SubjectPatchable>({
  table: "subjects",
  columns: ["seq", "tenant_id", "id", "display_name", ...KEYS, "confirmation_status", "tenant"],
  json: KEYS,
  patchable: ["display_name", ...KEYS],
});

export const getSubject = table.get;

export interface SubjectFilter {
  displayName?: string[] | undefined;
  walletAddress?: string[] | undefined;
  confirmationStatus?: string[] | undefined;
}

/** A tenancy's subjects; each filter matches any of its values. */
export function subjectRows(db: Queryable, tenantId: string, f: SubjectFilter): RowSource<SubjectRow> {
  return table.rows(db, tenantId, (w) => {
    anyOf(w, "display_name", f.displayName);
    if (f.walletAddress?.length)
      w.and(
        `exists (select 1 from jsonb_array_elements_text(wallet_address) a where lower(a) = any(${w.p(f.walletAddress.map((a) => a.toLowerCase()))}::text[]))`,
      );
    anyOf(w, "confirmation_status", f.confirmationStatus);
  });
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

export const insertSubject = table.insert;

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
export const updateSubject = table.update;
export const deleteSubject = table.remove;
