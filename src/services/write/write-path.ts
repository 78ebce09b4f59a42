import type { Outcome } from "../../batching/coalescer.js";
import type { Queryable } from "../../store/drivers/db.js";
import type { StoredAssetEvent } from "../../store/records/asset-events.js";
import type { FreeEventRow, NewFreeEvent } from "../../store/records/free-events.js";
import { FreshEvents } from "../../store/records/fresh-events.js";
import type { WriteDeps } from "./deps.js";
import {
  type EventBatcher,
  newEventBatcher,
  type PendingEvent,
  tenancyWallets,
  writeGroup,
} from "./event-batcher.js";
import { type FreeEventBatcher, newFreeEventBatcher, writeFreeEventGroup } from "./free-event-batcher.js";

/**
 * The write path: how an accepted record becomes part of its tenancy's log.
 *
 *   request → appenders (`events`, `freeEvents`): group commit, the rows STORED durably
 *           → hand-off (`handoff`): the rows just stored, kept in memory for this process
 *           → integrator (`src/workers/committer.ts`): appends them to the log, COMMITTED
 *           → sealer (`src/workers/seal-log.ts`): signs the log's state, CONFIRMED
 *
 * As in Tessera's split of appender and integrator, a write answers once its rows are durable,
 * and integrating them into the log is separate work. The hand-off exists so that the rows
 * a batcher has just inserted reach the committer without being read back (with their JSON
 * columns, a read cost as much as the write). It is only a shortcut: the database stays the
 * source of truth, the committer finds its work there (the asset events' commit queue, the
 * asset-free events' STORED rows) and reads whatever is not in hand, so a crash, a restart or
 * a committer in another process loses nothing.
 *
 * Built once per process, by the context factory (`openContext`); services write through its
 * appenders, and the committer the workers start takes from its hand-off.
 */
export interface WritePath {
  /** Asset events and asset creations, written in group transactions. */
  readonly events: EventBatcher;
  /** Asset-free events, written in group transactions that charge each tenancy's quota once. */
  readonly freeEvents: FreeEventBatcher;
  /** Asset events this process stored, for its own committer (filled once that committer opens it). */
  readonly handoff: FreshEvents;
}

export function openWritePath(deps: WriteDeps): WritePath {
  const handoff = new FreshEvents();
  return {
    events: newEventBatcher(deps, handoff),
    freeEvents: newFreeEventBatcher(deps),
    handoff,
  };
}

/** What `writeWith` wrote: the asset events' rows and the asset-free events' rows, in the order given. */
export interface WrittenWith<T> {
  events: StoredAssetEvent[];
  freeEvents: FreeEventRow[];
  result: T;
}

/**
 * Writes asset events and asset-free events in one transaction with `alongside`, outside the
 * groups: for writes that must commit with other changes or not at all (an erasure's record and
 * the deletion of the values it records, docs/vcon-lifecycle.md §4), which a group's own
 * transaction cannot hold. Each event is authorised against its locked asset as a group does; a
 * refusal, or `alongside` throwing, rolls everything back. The committer is then handed the rows
 * and woken as after a group.
 */
export async function writeWith<T>(
  ctx: WriteDeps & { writePath: WritePath },
  events: PendingEvent[],
  freeEvents: NewFreeEvent[],
  alongside: (
    tx: Queryable,
    written: { events: StoredAssetEvent[]; freeEvents: FreeEventRow[] },
  ) => Promise<T>,
): Promise<WrittenWith<T>> {
  // Read before the transaction: the keyring reads through the handle the transaction holds (PGlite).
  const wallets = await tenancyWallets(ctx.keys, events);
  const rowOf = <R>(o: Outcome<R>): R => {
    if ("error" in o) throw o.error;
    return o.row;
  };
  const out = await ctx.db.transaction(async (tx) => {
    const written = (await writeGroup(tx, events, wallets)).map((o) => rowOf(o)[0]);
    const free = (await writeFreeEventGroup(tx, freeEvents)).map(rowOf);
    const result = await alongside(tx, { events: written, freeEvents: free });
    return { events: written, freeEvents: free, result };
  });
  for (const e of events) ctx.caches.assetStates.delete(e.assetId);
  ctx.writePath.handoff.add(out.events);
  for (const t of new Set([...events.map((e) => e.tenantId), ...freeEvents.map((e) => e.tenant_id)]))
    ctx.wake.commit(t);
  return out;
}
