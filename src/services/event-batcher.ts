import { randomUUID } from "node:crypto";
import type { Ctx } from "../context.js";
import { notFound } from "../core/api/api-error.js";
import {
  insertAssetEvents,
  type NewAssetEvent,
  type Principal4,
  type StoredAssetEvent,
} from "../store/asset-events.js";
import { ASSET_ROW_COLUMNS, type AssetRow, insertAssets, type NewAssetRow } from "../store/assets.js";
import type { Queryable } from "../store/db.js";
import { freshEventsOf } from "../store/fresh-events.js";
import { tenantWalletAddress } from "./tenant-wallet.js";

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
  /** Checked against the locked asset inside the group's transaction; throwing refuses this event only. */
  authorize?: ((asset: AssetRow) => void) | undefined;
  /**
   * The asset this event creates (its NewAsset event), inserted by the group with its final
   * attributes. Nobody else can see it before the group commits, so it is not locked.
   */
  creates?: NewAssetRow | undefined;
}

/** What happened to one event of a group. */
export type Outcome = { row: StoredAssetEvent } | { error: unknown };

interface Waiting {
  event: PendingEvent;
  resolve(row: StoredAssetEvent): void;
  reject(err: unknown): void;
}

const MAX_GROUP = 500;

/**
 * Group transactions in flight at once. One at a time leaves the event loop idle while a
 * group waits for its commit (a WAL flush is ~10 ms here) and then floods it with the
 * replies' follow-up requests; a few in flight overlap those waits, and PostgreSQL merges
 * their flushes. Groups lock assets in id order, so they never deadlock; on one asset
 * they queue on its row lock inside the database. PGlite runs one transaction at a time.
 */
const IN_FLIGHT = { postgres: 4, pglite: 1 } as const;

/**
 * Application-level group commit: events posted concurrently are written in one
 * transaction with one multi-row insert, each caller answered after that commit.
 * A request pays a transaction's fixed cost once per group instead of once per event.
 */
export class EventBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;

  constructor(private readonly ctx: Ctx) {
    this.maxInFlight = IN_FLIGHT[ctx.db.kind];
  }

  /** Resolves with the stored row once its group has committed. */
  write(event: PendingEvent): Promise<StoredAssetEvent> {
    return new Promise((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.schedule();
    });
  }

  // Waits one turn of the event loop first, so requests parsed in the same tick join the group.
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        this.inFlight++;
        void this.flush(group).finally(() => {
          this.inFlight--;
          if (this.queue.length > 0) this.schedule();
        });
      }
    });
  }

  private async flush(group: Waiting[]): Promise<void> {
    try {
      const outcomes = await this.ctx.db.transaction((tx) =>
        writeGroup(
          tx,
          this.ctx,
          group.map((w) => w.event),
        ),
      );
      const stored: StoredAssetEvent[] = [];
      for (const [i, w] of group.entries()) {
        const o = outcomes[i] as Outcome;
        if ("row" in o) {
          stored.push(o.row);
          w.resolve(o.row);
        } else w.reject(o.error);
      }
      freshEventsOf(this.ctx.db)?.add(stored);
      for (const t of new Set(group.map((w) => w.event.tenantId))) this.ctx.wake.commit(t);
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }
}

function newRow(e: PendingEvent, asset: AssetRow, now: Date, from: string): NewAssetEvent {
  return {
    id: randomUUID(),
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
 * Writes a group: inserts the assets it creates, locks the others in id order, authorises
 * each event against its locked asset (a refusal or a missing asset fails that event only),
 * inserts the rest with one statement and updates each asset it changes once. A group that changes no asset only
 * shares the assets' row locks (their attributes cannot change under its authorisation),
 * so such groups for one asset commit side by side.
 */
export async function writeGroup(tx: Queryable, ctx: Ctx, events: PendingEvent[]): Promise<Outcome[]> {
  const now = new Date();
  const created = events.flatMap((e) => (e.creates ? [e.creates] : []));
  await insertAssets(tx, created);
  const existing = events.filter((e) => !e.creates);
  const ids = [...new Set(existing.map((e) => e.assetId))].sort();
  const mode = existing.some(changesAsset) ? "update" : "share";
  const locked = ids.length
    ? await tx.query<AssetRow>(
        `select ${ASSET_ROW_COLUMNS} from assets where id = any($1::uuid[]) order by id for ${mode}`,
        [ids],
      )
    : [];
  const state = new Map(locked.map((a) => [a.id, { ...a }]));
  for (const a of created) state.set(a.id, { ...a, seq: 0, created_at: now });
  const outcomes: Array<Outcome | NewAssetEvent> = [];
  const changed = new Set<string>();
  for (const e of events) {
    const asset = state.get(e.assetId);
    try {
      if (!asset) throw notFound("asset");
      e.authorize?.(asset);
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
    outcomes.push(newRow(e, asset, now, await tenantWalletAddress(ctx.keys, asset.tenant_id)));
  }
  const rows = outcomes.filter((o): o is NewAssetEvent => "asset_id" in o);
  const inserted = new Map((await insertAssetEvents(tx, rows)).map((r) => [r.id, r]));
  const assets = [...changed].map((id) => state.get(id) as AssetRow);
  if (assets.length > 0)
    await tx.query(
      `update assets a set attributes = v.attrs, tracked = v.tracked
       from unnest($1::uuid[], $2::jsonb[], $3::text[]) as v(id, attrs, tracked) where a.id = v.id`,
      [
        assets.map((a) => a.id),
        assets.map((a) => JSON.stringify(a.attributes)),
        assets.map((a) => a.tracked),
      ],
    );
  return outcomes.map((o) => ("asset_id" in o ? { row: inserted.get(o.id) as StoredAssetEvent } : o));
}

const batchers = new WeakMap<Ctx, EventBatcher>();

/** The process's batcher for this service context. */
export function batcherFor(ctx: Ctx): EventBatcher {
  let b = batchers.get(ctx);
  if (!b) {
    b = new EventBatcher(ctx);
    batchers.set(ctx, b);
  }
  return b;
}
