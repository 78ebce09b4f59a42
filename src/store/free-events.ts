import type { Queryable } from "./db.js";

export interface FreeEventRow {
  seq: number;
  id: string;
  tenant_id: string;
  attributes: Record<string, unknown>;
  trails: string[];
  event_type: string;
  created_by: string;
  created_at: number;
  confirmation_status: string;
  mmr_index: number | null;
  idtimestamp: string | null;
  content_hash: string | null;
}

export const FREE_EVENT_COLUMNS =
  "seq, id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status, mmr_index, idtimestamp, content_hash";

export async function insertFreeEvent(
  db: Queryable,
  e: Pick<
    FreeEventRow,
    "id" | "tenant_id" | "attributes" | "trails" | "event_type" | "created_by" | "created_at"
  >,
  statement?: Uint8Array,
): Promise<FreeEventRow> {
  const rows = await db.query<FreeEventRow>(
    `insert into events (id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status, statement)
     values ($1, $2, $3::jsonb, $4::text[], $5, $6, $7, 'STORED', $8) returning ${FREE_EVENT_COLUMNS}`,
    [
      e.id,
      e.tenant_id,
      JSON.stringify(e.attributes),
      e.trails,
      e.event_type,
      e.created_by,
      e.created_at,
      statement ? Buffer.from(statement) : null,
    ],
  );
  return rows[0] as FreeEventRow;
}

export async function getFreeEvent(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<FreeEventRow | undefined> {
  return (
    await db.query<FreeEventRow>(
      `select ${FREE_EVENT_COLUMNS} from events where tenant_id = $1 and id = $2`,
      [tenantId, id],
    )
  )[0];
}

/** Statement bytes of a registered signed statement (SCITT), if the event is one. */
export async function getStatement(db: Queryable, id: string): Promise<Uint8Array | undefined> {
  const rows = await db.query<{ statement: Uint8Array | null }>(
    "select statement from events where id = $1",
    [id],
  );
  const s = rows[0]?.statement;
  return s ? new Uint8Array(s) : undefined;
}

export function searchFreeEvents(
  db: Queryable,
  where: string,
  params: unknown[],
  skip: number,
  top: number,
): Promise<FreeEventRow[]> {
  const n = params.length;
  return db.query<FreeEventRow>(
    `select ${FREE_EVENT_COLUMNS} from events where ${where} order by seq desc offset $${n + 1} limit $${n + 2}`,
    [...params, skip, top],
  );
}

export async function countFreeEvents(db: Queryable, where: string, params: unknown[]): Promise<number> {
  return (
    (await db.query<{ n: number }>(`select count(*)::int as n from events where ${where}`, params))[0]?.n ?? 0
  );
}
