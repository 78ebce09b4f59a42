import { uuid7 } from "../../core/node/uuid7.js";
import { notFound } from "../../errors/api-error.js";
import type { Db, Queryable } from "../../store/drivers/db.js";
import {
  insertAssetEvents,
  insertAssetEventsIfUnchanged,
  type NewAssetEvent,
} from "../../store/records/asset-event-writes.js";
import type { Principal4, StoredAssetEvent } from "../../store/records/asset-events.js";
import {
  type AssetRow,
  insertAssets,
  lockAssets,
  type NewAssetRow,
  newAssetAsRow,
  readAssetRows,
  saveAssetStates,
} from "../../store/records/assets.js";
import type { ErasableValue } from "../../store/records/erasable-values.js";
import type { Outcome } from "./group-commit.js";

/** An event ready to be written: checked and authorised, waiting for its group's transaction. */
export interface PendingEvent {
  assetId: string;
  tenantId: string;
  operation: string;
  behaviour: string;
  eventAttributes: Record<string, unknown>;
  assetAttributes: Record<string, unknown>;
  declared: Principal4;
  accepted: Principal4;
  timestampDeclared?: Date | undefined;
  /**
   * Checked against the asset as the event is written on it (locked in the group's transaction, or
   * compared with what was read by the optimistic statement); throwing refuses this event only.
   */
  authorize?: ((asset: AssetRow) => void) | undefined;
  /**
   * The asset this event creates (its NewAsset event), inserted by the group with its final
   * attributes. Nobody else can see it before the group commits, so it is not locked.
   */
  creates?: NewAssetRow | undefined;
  /**
   * Events recorded on the asset this event creates, after it, in the same transaction: all of
   * them or none (`POST /archivist/v2/assets:withEvents`). Checked and authorised before the group.
   */
  followers?: PendingEvent[] | undefined;
  /**
   * The values and salts its erasable attributes commit to: inserted with the event, by the same
   * statement, so a refused event leaves none and a stored one is never without them.
   */
  erasables?: readonly ErasableValue[] | undefined;
}

/** What a group answers each pending event: its stored row, then its followers' rows in order. */
export type WrittenEvents = [StoredAssetEvent, ...StoredAssetEvent[]];

/** The wallet address (the `from` of its events) of each tenancy a group writes to. */
export type TenancyWallets = ReadonlyMap<string, string>;

function newRow(e: PendingEvent, asset: AssetRow, now: Date, from: string): NewAssetEvent {
  return {
    id: uuid7(now.getTime()),
    asset_id: asset.id,
    tenant_id: asset.tenant_id,
    operation: e.operation,
    behaviour: e.behaviour,
    event_attributes: e.eventAttributes,
    asset_attributes: e.assetAttributes,
    timestamp_declared: e.timestampDeclared ?? now,
    timestamp_accepted: now,
    principal_declared: e.declared,
    principal_accepted: e.accepted,
    confirmation_status: "STORED",
    proof_mechanism: asset.proof_mechanism,
    public: asset.public,
    from_address: from,
    erasables: e.erasables,
  };
}

/** True when recording the event changes its asset (attributes or tracking), not just adds to it. */
function changesAsset(e: PendingEvent): boolean {
  return (
    e.operation === "StopTracking" ||
    e.operation === "StartTracking" ||
    Object.keys(e.assetAttributes).length > 0
  );
}

/**
 * Writes a group's asset events: inserts the assets it creates, locks the others in id order, authorises
 * each event against its locked asset (a refusal or a missing asset fails that event only),
 * inserts the rest with one statement and updates each asset it changes once. A group that changes no asset only
 * shares the assets' row locks (their attributes cannot change under its authorisation),
 * so such groups for one asset commit side by side.
 */
export async function writeEventGroup(
  tx: Queryable,
  events: PendingEvent[],
  wallets: TenancyWallets,
): Promise<Array<Outcome<WrittenEvents>>> {
  const now = new Date();
  const created = events.flatMap((e) => (e.creates ? [e.creates] : []));
  await insertAssets(tx, created);
  const existing = events.filter((e) => !e.creates);
  const ids = [...new Set(existing.map((e) => e.assetId))].sort();
  const mode = existing.some(changesAsset) ? "update" : "share";
  const locked = await lockAssets(tx, ids, mode);
  const state = new Map(locked.map((a) => [a.id, { ...a }]));
  for (const a of created) state.set(a.id, newAssetAsRow(a, now));
  const { outcomes, changed } = authorizeGroup(events, state, wallets, now);
  const rows = outcomes.flatMap((o) => (Array.isArray(o) ? o : []));
  const inserted = new Map((await insertAssetEvents(tx, rows)).map((r) => [r.id, r]));
  await saveAssetStates(
    tx,
    [...changed].map((id) => state.get(id) as AssetRow),
  );
  return answers(outcomes, inserted);
}

/** Each event refused, or its rows (its own, then its followers') to write. */
type Authorised = Outcome<WrittenEvents> | NewAssetEvent[];

/**
 * Authorises each event against its asset as `state` holds it (a refusal or a missing asset fails
 * that event only) and makes its rows; the changes events make to their assets are applied to
 * `state` in order, and their ids returned in `changed`.
 */
function authorizeGroup(
  events: PendingEvent[],
  state: Map<string, AssetRow>,
  wallets: TenancyWallets,
  now: Date,
): { outcomes: Authorised[]; changed: Set<string> } {
  const outcomes: Authorised[] = [];
  const changed = new Set<string>();
  for (const e of events) {
    const asset = state.get(e.assetId);
    let from: string | undefined;
    try {
      if (!asset) throw notFound("asset");
      e.authorize?.(asset);
      // An event is written in its asset's tenancy; one posted elsewhere was refused just above.
      from = wallets.get(asset.tenant_id);
      if (from === undefined) throw notFound("asset");
    } catch (error) {
      outcomes.push({ error });
      continue;
    }
    if (changesAsset(e) && !e.creates) {
      asset.attributes = { ...asset.attributes, ...e.assetAttributes };
      if (e.operation === "StopTracking") asset.tracked = "NOT_TRACKED";
      if (e.operation === "StartTracking") asset.tracked = "TRACKED";
      changed.add(asset.id);
    }
    outcomes.push([e, ...(e.followers ?? [])].map((one) => newRow(one, asset, now, from)));
  }
  return { outcomes, changed };
}

/** Each event's answer: its stored rows, or why it alone failed. */
function answers(
  outcomes: Authorised[],
  inserted: ReadonlyMap<string, StoredAssetEvent>,
): Array<Outcome<WrittenEvents>> {
  return outcomes.map((o) =>
    Array.isArray(o) ? { row: o.map((r) => inserted.get(r.id) as StoredAssetEvent) as WrittenEvents } : o,
  );
}

/**
 * A group that creates and changes no asset, on PostgreSQL, in two statements instead of a
 * transaction's four (begin, lock, insert, commit): its assets are read without a lock and its
 * events authorised against them, then one statement, its own transaction, takes the same share
 * locks, compares each asset with what was read, and writes the events of those unchanged. An
 * asset changed in between (an event that set its attributes or tracking, committed meanwhile)
 * writes none of its events there: they are authorised again against the locked asset in
 * `writeEventGroup`, as every group was. So each event is still authorised against the asset it is
 * written on, and a round trip is a good part of what a group costs the service
 * (docs/performance.md). Undefined for a group this does not take (PGlite runs one transaction at
 * a time, so a group there is never waiting on a lock, and its statements are the same).
 *
 * With `known`, the assets seen by earlier groups are not read again: what is remembered is only
 * the state the statement expects, which it compares with each asset as locked, so an asset
 * changed since (here or by another process) goes to the locking write and is forgotten. A
 * refusal is never made on a remembered asset: the group is judged again on its assets read now.
 */
export async function writeGroupOptimistically(
  db: Db,
  events: PendingEvent[],
  wallets: TenancyWallets,
  known?: Map<string, AssetRow>,
  readAll = false,
): Promise<Array<Outcome<WrittenEvents>> | undefined> {
  if (db.kind !== "postgres" || events.some((e) => e.creates || changesAsset(e))) return undefined;
  const now = new Date();
  const ids = [...new Set(events.map((e) => e.assetId))];
  const remembered = known && !readAll ? ids.flatMap((id) => known.get(id) ?? []) : [];
  const read = await readAssetRows(db, remembered.length ? ids.filter((id) => !known?.has(id)) : ids);
  if (known) remember(known, read);
  const rows = [...remembered, ...read];
  const state = new Map(rows.map((a) => [a.id, a]));
  const { outcomes } = authorizeGroup(events, state, wallets, now);
  // An event is refused only on its asset as read now: a remembered one may have changed since.
  // Judged again once, on every asset read (what this pass read is remembered by now).
  if (remembered.length > 0 && outcomes.some((o) => !Array.isArray(o))) {
    for (const a of remembered) known?.delete(a.id);
    return writeGroupOptimistically(db, events, wallets, known, true);
  }
  const expected = rows.map((a) => ({
    id: a.id,
    attributes: a.attributes,
    tracked: a.tracked,
    confirmation_status: a.confirmation_status,
  }));
  const written = outcomes.flatMap((o) => (Array.isArray(o) ? o : []));
  const inserted = new Map((await insertAssetEventsIfUnchanged(db, written, expected)).map((r) => [r.id, r]));
  const again = events.filter((_, i) => {
    const o = outcomes[i];
    return Array.isArray(o) && !inserted.has((o[0] as NewAssetEvent).id);
  });
  if (again.length === 0) return answers(outcomes, inserted);
  // Those assets changed since they were seen: the locking write reads them, and so will the next group.
  for (const e of again) known?.delete(e.assetId);
  const locked = await writeAlreadyStarted(db, again, wallets);
  let k = 0;
  return outcomes.map((o) => {
    if (!Array.isArray(o)) return o;
    if (inserted.has((o[0] as NewAssetEvent).id)) return answers([o], inserted)[0] as Outcome<WrittenEvents>;
    return locked[k++] as Outcome<WrittenEvents>;
  });
}

// Past this many remembered assets the memory starts over (an asset row is ~1 kB with its attributes).
const ASSETS_KEPT = 10_000;

/** Keeps the assets a group read, as the next group on them expects to find them. */
function remember(known: Map<string, AssetRow>, rows: readonly AssetRow[]): void {
  if (known.size + rows.length > ASSETS_KEPT) known.clear();
  for (const a of rows) known.set(a.id, a);
}

/**
 * The locking write of what the optimistic statement left, which has committed the rest: a
 * failure here must not fail the whole group, whose retry would write those events twice. The
 * leftovers are tried together, then each alone, and a failure is that event's own.
 */
async function writeAlreadyStarted(
  db: Db,
  events: PendingEvent[],
  wallets: TenancyWallets,
): Promise<Array<Outcome<WrittenEvents>>> {
  try {
    return await db.transaction((tx) => writeEventGroup(tx, events, wallets));
  } catch (error) {
    if (events.length === 1) return [{ error }];
  }
  const alone: Array<Outcome<WrittenEvents>> = [];
  for (const e of events) {
    try {
      alone.push(...(await db.transaction((tx) => writeEventGroup(tx, [e], wallets))));
    } catch (error) {
      alone.push({ error });
    }
  }
  return alone;
}
