import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

export interface InviteRow {
  seq: number;
  id: string;
  tenant_id: string;
  email: string;
  message: string;
  expiry_time: Date;
  code_hash: string;
}

const COLUMNS = "seq, id, tenant_id, email, message, expiry_time, code_hash";

/** One invite by id in any tenancy (accepting is done without a token, hence without a tenancy). */
export async function getInviteAnyTenancy(db: Queryable, id: string): Promise<InviteRow | undefined> {
  return (await db.query<InviteRow>(`select ${COLUMNS} from invites where id = $1`, [id]))[0];
}

export async function getInvite(db: Queryable, tenantId: string, id: string): Promise<InviteRow | undefined> {
  return (
    await db.query<InviteRow>(`select ${COLUMNS} from invites where tenant_id = $1 and id = $2`, [
      tenantId,
      id,
    ])
  )[0];
}

/** A tenancy's pending invites, optionally by e-mail address (any case). */
export function inviteRows(
  db: Queryable,
  tenantId: string,
  f: { email?: string[] | undefined },
): RowSource<InviteRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  return keysetSource(
    db,
    "invites",
    COLUMNS,
    anyOf(
      w,
      "lower(email)",
      f.email?.map((e) => e.toLowerCase()),
    ),
  );
}

export async function insertInvite(db: Queryable, i: Omit<InviteRow, "seq">): Promise<InviteRow> {
  const rows = await db.query<InviteRow>(
    `insert into invites (id, tenant_id, email, message, expiry_time, code_hash)
     values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
    [i.id, i.tenant_id, i.email, i.message, i.expiry_time, i.code_hash],
  );
  return rows[0] as InviteRow;
}

export async function deleteInvite(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("delete from invites where tenant_id = $1 and id = $2 returning id", [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
