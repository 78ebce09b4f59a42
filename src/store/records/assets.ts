import type { AssetSource } from "../../formats/record/asset.js";
import type { Queryable } from "../drivers/db.js";

/** A stored asset: what the record mapper reads, plus its attributes and place in the table. */
export interface AssetRow extends AssetSource {
  seq: number;
  attributes: Record<string, unknown>;
  created_at: Date;
}

/**
 * An asset's status as read, the lowest of its events': PENDING while any of them is only
 * STORED (one probe of the commit queue, and of a partial index for SIMPLE_HASH events); for a MERKLE_LOG asset, the trust of its last
 * committed event (seals cover prefixes of the log, so a later entry is never trusted more
 * than an earlier one); else the level kept on the row. Deriving it means that recording an
 * event never writes its asset, so groups of events for one asset share its row lock and
 * commit side by side, and sealing or anchoring writes no asset at all.
 */
export const ASSET_STATUS_SQL =
  "(case when exists (select 1 from asset_event_queue q where q.asset_id = assets.id) or exists (select 1 from asset_events pending" +
  " where pending.asset_id = assets.id and pending.confirmation_status = 'STORED' and pending.proof_mechanism = 'SIMPLE_HASH') then 'PENDING'" +
  " when assets.proof_mechanism = 'MERKLE_LOG' then coalesce((select case when s.anchored_block is null or not s.witnessed then 'CONFIRMED' else 'UNEQUIVOCAL' end" +
  " from asset_log_heads h join seals s on s.tenant_id = assets.tenant_id and s.mmr_size > h.last_mmr_index" +
  " where h.asset_id = assets.id order by s.mmr_size limit 1), case when exists (select 1 from asset_log_heads h where h.asset_id = assets.id)" +
  " then 'COMMITTED' else assets.confirmation_status end)" +
  " else assets.confirmation_status end)";

/** Columns of an asset row as stored, for writers that lock it: the status is not derived (no probes). */
const ASSET_ROW_COLUMNS =
  "seq, id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, confirmation_status, created_at";

/** Columns of an asset row; statements using them name the table `assets` (no alias). */
export const ASSET_COLUMNS = `seq, id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, ${ASSET_STATUS_SQL} as confirmation_status, created_at`;

export async function getAsset(db: Queryable, id: string): Promise<AssetRow | undefined> {
  return (
    await db.query<AssetRow>(`select ${ASSET_COLUMNS} from assets where id = $1`, [id], { reusePlan: true })
  )[0];
}

/** An asset row as written: the database numbers it (`seq`) and stamps `created_at`. */
export type NewAssetRow = Omit<AssetRow, "seq" | "created_at">;

/**
 * A new asset as a row its events are authorised against before it is stored: written out, not
 * spread (a conserver's new vCon makes one for each of its events).
 */
export function newAssetAsRow(a: NewAssetRow, createdAt: Date): AssetRow {
  return {
    seq: 0,
    id: a.id,
    tenant_id: a.tenant_id,
    behaviours: a.behaviours,
    attributes: a.attributes,
    proof_mechanism: a.proof_mechanism,
    public: a.public,
    chain_id: a.chain_id,
    tracked: a.tracked,
    owner: a.owner,
    confirmation_status: a.confirmation_status,
    created_at: createdAt,
  };
}

/** The columns of a new asset, with their SQL types: the shape of each row of the group's JSON document. */
const NEW_ASSET_ROW_TYPE =
  "id uuid, tenant_id uuid, behaviours jsonb, attributes jsonb, proof_mechanism text, public boolean, chain_id text, " +
  "tracked text, owner text, confirmation_status text";

/**
 * Inserts new assets with one statement (a group's creations), sent as one JSON document of rows
 * as the group's events are (`insertAssetEvents`): no array literal escaping each attribute's JSON.
 */
export async function insertAssets(db: Queryable, assets: NewAssetRow[]): Promise<void> {
  if (assets.length === 0) return;
  await db.query(
    `insert into assets (id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, confirmation_status)
     select id, tenant_id, behaviours, attributes, proof_mechanism, public, chain_id, tracked, owner, confirmation_status
       from jsonb_to_recordset($1::jsonb) as r(${NEW_ASSET_ROW_TYPE})`,
    // The rows as they are: the recordset reads the columns it names and no other key.
    [JSON.stringify(assets)],
    { reusePlan: true },
  );
}

/**
 * One page of assets matching `where` (placeholders already numbered), newest first; `from`
 * is the table or a `pinnedSource` of it.
 */
export function selectAssets(
  db: Queryable,
  where: string,
  params: unknown[],
  opts: { before: number; limit: number; from?: string },
): Promise<AssetRow[]> {
  const n = params.length;
  return db.query<AssetRow>(
    `select ${ASSET_COLUMNS} from ${opts.from ?? "assets"} where ${where} and ($${n + 1}::bigint = 0 or seq < $${n + 1}) order by seq desc limit $${n + 2}`,
    [...params, opts.before, opts.limit],
  );
}

/**
 * Locks a group's existing assets in id order (so groups never deadlock) and reads them as
 * stored. `share` for a group that changes none of them: such groups for one asset commit side by side.
 */
export async function lockAssets(
  tx: Queryable,
  ids: string[],
  mode: "update" | "share",
): Promise<AssetRow[]> {
  if (ids.length === 0) return [];
  return tx.query<AssetRow>(
    `select ${ASSET_ROW_COLUMNS} from assets where id = any($1::uuid[]) order by id for ${mode === "update" ? "update" : "share"}`,
    [ids],
  );
}

/** A group's existing assets as stored now, without a lock (the optimistic write compares them again). */
export async function readAssetRows(db: Queryable, ids: string[]): Promise<AssetRow[]> {
  if (ids.length === 0) return [];
  return db.query<AssetRow>(`select ${ASSET_ROW_COLUMNS} from assets where id = any($1::uuid[])`, [ids], {
    reusePlan: true,
  });
}

/** Writes the attributes and tracking of assets a group changed, one statement for all of them. */
export async function saveAssetStates(
  tx: Queryable,
  assets: Array<Pick<AssetRow, "id" | "attributes" | "tracked">>,
): Promise<void> {
  if (assets.length === 0) return;
  await tx.query(
    `update assets a set attributes = v.attrs, tracked = v.tracked
       from unnest($1::uuid[], $2::jsonb[], $3::text[]) as v(id, attrs, tracked) where a.id = v.id`,
    [assets.map((a) => a.id), assets.map((a) => JSON.stringify(a.attributes)), assets.map((a) => a.tracked)],
  );
}

/**
 * The tenancy's assets whose current attributes pass a compiled filter, in creation order.
 * `compile` gets the attributes column and the number of its first placeholder.
 */
export async function assetsMatchingAttributes(
  db: Queryable,
  tenantId: string,
  compile: (column: string, firstParam: number) => { sql: string; params: unknown[] },
): Promise<AssetRow[]> {
  const c = compile("attributes", 2);
  return db.query<AssetRow>(
    `select ${ASSET_COLUMNS} from assets where tenant_id = $1 and ${c.sql} order by seq`,
    [tenantId, ...c.params],
  );
}

/** SIMPLE_HASH assets whose window was anchored: their events are CONFIRMED (PENDING is derived while any is STORED). */
export async function markSimpleHashConfirmed(db: Queryable, assetIds: string[]): Promise<void> {
  if (assetIds.length === 0) return;
  await db.query("update assets set confirmation_status = 'CONFIRMED' where id = any($1::uuid[])", [
    assetIds,
  ]);
}
