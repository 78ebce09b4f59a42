import type { Queryable } from "./db.js";
import { countWhere } from "./sql.js";

export interface AssetRow {
  seq: number;
  id: string;
  tenant_id: string;
  behaviours: string[];
  attributes: Record<string, unknown>;
  proof_mechanism: string;
  public: boolean;
  chain_id: string;
  tracked: string;
  owner: string;
  confirmation_status: string;
  created_at: Date;
}

/**
 * An asset's status as read: PENDING while any of its events is only STORED (one probe of a
 * partial index), else the level the ledger workers keep on the row. Deriving PENDING here
 * means that recording an event never writes its asset, so groups of events for one asset
 * need only share its row lock and can commit side by side.
 */
export const ASSET_STATUS_SQL =
  "(case when exists (select 1 from asset_events pending where pending.asset_id = assets.id and pending.confirmation_status = 'STORED') then 'PENDING' else assets.confirmation_status end)";

/** Columns of an asset row; statements using them name the table `assets` (no alias). */
export const ASSET_COLUMNS = `seq, id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, ${ASSET_STATUS_SQL} as confirmation_status, created_at`;

export async function getAsset(db: Queryable, id: string): Promise<AssetRow | undefined> {
  return (await db.query<AssetRow>(`select ${ASSET_COLUMNS} from assets where id = $1`, [id]))[0];
}

export async function insertAsset(db: Queryable, a: Omit<AssetRow, "seq" | "created_at">): Promise<AssetRow> {
  const rows = await db.query<AssetRow>(
    `insert into assets (id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, confirmation_status)
     values ($1, $2, $3::jsonb, $4::jsonb, $5, $6, $7, $8, $9, $10) returning ${ASSET_COLUMNS}`,
    [
      a.id,
      a.tenant_id,
      JSON.stringify(a.behaviours),
      JSON.stringify(a.attributes),
      a.proof_mechanism,
      a.public,
      a.chain_id,
      a.tracked,
      a.owner,
      a.confirmation_status,
    ],
  );
  return rows[0] as AssetRow;
}

/** One page of assets matching `where` (placeholders already numbered), newest first. */
export function selectAssets(
  db: Queryable,
  where: string,
  params: unknown[],
  opts: { before: number; limit: number },
): Promise<AssetRow[]> {
  const n = params.length;
  return db.query<AssetRow>(
    `select ${ASSET_COLUMNS} from assets where ${where} and ($${n + 1}::bigint = 0 or seq < $${n + 1}) order by seq desc limit $${n + 2}`,
    [...params, opts.before, opts.limit],
  );
}

/** Count of assets matching `where`, stopping at `cap` when given (cheap 206 detection). */
export function countAssets(db: Queryable, where: string, params: unknown[], cap?: number): Promise<number> {
  return countWhere(db, "assets", where, params, cap);
}

/** Recomputes each asset's status as the lowest of its events' (PENDING while any event is only STORED). */
export async function refreshAssetStatus(db: Queryable, assetIds: string[]): Promise<void> {
  if (assetIds.length === 0) return;
  // The lowest level present wins; each probe is one partial-index lookup, whatever the asset's size.
  const has = (status: string) =>
    `exists (select 1 from asset_events e where e.asset_id = a.id and e.confirmation_status = '${status}')`;
  await db.query(
    `update assets a set confirmation_status = case
        when ${has("STORED")} then 'PENDING'
        when ${has("COMMITTED")} then 'COMMITTED'
        when ${has("CONFIRMED")} then 'CONFIRMED'
        else 'UNEQUIVOCAL' end
     where a.id = any($1::uuid[])`,
    [assetIds],
  );
}
