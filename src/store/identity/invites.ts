import type { Queryable } from "../drivers/db.js";
import { anyOf, type RowSource } from "../query/row-source.js";
import { tenantTable } from "../query/tenant-table.js";

export interface InviteRow {
  seq: number;
  id: string;
  tenant_id: string;
  email: string;
  message: string;
  expiry_time: Date;
  code_hash: string;
}

const table = tenantTable<InviteRow, never>({
  table: "invites",
  columns: ["seq", "id", "tenant_id", "email", "message", "expiry_time", "code_hash"],
});

/** One invite by id in any tenancy (accepting is done without a token, hence without a tenancy). */
export const getInviteAnyTenancy = (db: Queryable, id: string) => table.one(db, "id = $1", [id]);

export const getInvite = table.get;

/** A tenancy's pending invites, optionally by e-mail address (any case). */
export function inviteRows(
  db: Queryable,
  tenantId: string,
  f: { email?: string[] | undefined },
): RowSource<InviteRow> {
  return table.rows(db, tenantId, (w) =>
    anyOf(
      w,
      "lower(email)",
      f.email?.map((e) => e.toLowerCase()),
    ),
  );
}

export const insertInvite = table.insert;
export const deleteInvite = table.remove;
