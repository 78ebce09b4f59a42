import type { Queryable } from "../../store/drivers/db.js";
import type { FreeEventRow } from "../../store/records/free-events.js";
import { FreshEvents } from "../../store/records/fresh-events.js";
import {
  type PendingEvent,
  type TenancyWallets,
  type WrittenEvents,
  writeGroupOptimistically,
} from "./asset-event-group.js";
import type { CommitWake, WriteDeps } from "./deps.js";
import type { PendingFreeEvent } from "./free-event-group.js";
import { GroupCommit } from "./group-commit.js";
import {
  isAssetEvent,
  type PendingRecord,
  tenancyOf,
  tenancyWallets,
  type WrittenRecord,
  writeRecords,
} from "./write-records.js";

/**
 * The write path: how an accepted record becomes part of its tenancy's log.
 *
 *   request → check (`checkEvent`, `checkFreeEvent`: pure): the record, its erasable values on it
 *           → group commit (`writeEvent`, `writeFreeEvent`): records posted at once share a group
 *           → the group's write (`writeRecords`): one transaction, each record STORED durably
 *             with its erasable values, or refused with none (a group of asset events that
 *             creates and changes no asset: one statement, `writeGroupOptimistically`)
 *           → hand-off (`handoff`): the asset events just stored, kept in memory for this
 *             process, and their tenancies' committers woken
 *           → integrator (`src/workers/committer.ts`): appends them to the log, COMMITTED
 *           → sealer (`src/workers/seal-log.ts`): signs the log's state, CONFIRMED
 *
 * An erasure's records take the same path in the group commit's other mode (`writeAlone`): a
 * transaction of their own that also deletes the values they record, all or nothing. The
 * service's own records in a tenancy's log (a key rotation, an accepted restore:
 * `recordServiceEvent`) take it too, as asset-free events charged to no quota.
 *
 * As in Tessera's split of appender and integrator, a write answers once its rows are durable,
 * and integrating them into the log is separate work. The hand-off exists so that the rows
 * a group has just inserted reach the committer without being read back (with their JSON
 * columns, a read cost as much as the write). It is only a shortcut: the database stays the
 * source of truth, the committer finds its work there (the asset events' commit queue, the
 * asset-free events' STORED rows) and reads whatever is not in hand, so a crash, a restart or
 * a committer in another process loses nothing.
 *
 * Built once per process, by the context factory (`openContext`); services write through it,
 * and the committer the workers start takes from its hand-off.
 */
export interface WritePath {
  /** An asset event, or an asset's creation (with its first events): its rows once its group has committed. */
  writeEvent(event: PendingEvent): Promise<WrittenEvents>;
  /**
   * An asset-free event, its tenancy's quota charged unless it is the service's own: its row once
   * its group has committed.
   */
  writeFreeEvent(event: PendingFreeEvent): Promise<FreeEventRow>;
  /**
   * Records written in a transaction of their own with `alongside`, all or none (an erasure's
   * records and the deletion of the values they record, docs/vcon-lifecycle.md §4): the group
   * commit's other mode, the same write, hand-off and wake.
   */
  writeAlone<T>(
    records: PendingRecord[],
    alongside: (tx: Queryable, rows: WrittenRecord[]) => Promise<T>,
  ): Promise<{ rows: WrittenRecord[]; result: T }>;
  /** Asset events this process stored, for its own committer (filled once that committer opens it). */
  readonly handoff: FreshEvents;
}

/**
 * Asset events' group transactions in flight at once. One at a time leaves the event loop idle
 * while a group waits for its commit (a WAL flush is ~10 ms here) and then floods it with the
 * replies' follow-up requests; a few in flight overlap those waits, and PostgreSQL merges
 * their flushes. Groups lock assets in id order, so they never deadlock; on one asset
 * they queue on its row lock inside the database. PGlite runs one transaction at a time.
 */
const EVENTS_IN_FLIGHT = { postgres: 4, pglite: 1 } as const;

/** Asset-free events': one tenancy's groups queue on its usage row anyway; two overlap parsing with a commit. */
const FREE_EVENTS_IN_FLIGHT = { postgres: 2, pglite: 1 } as const;

const NO_WALLETS: TenancyWallets = new Map();

export function openWritePath(deps: WriteDeps): WritePath {
  const handoff = new FreshEvents();
  const known = deps.caches.assetStates;
  const afterCommit = (records: PendingRecord[], rows: WrittenRecord[]) =>
    committed(deps, handoff, records, rows);
  // Two queues of one group commit: asset events' groups never wait on a tenancy's usage row.
  const events = new GroupCommit<PendingRecord, WrittenRecord, TenancyWallets>(deps.db, {
    prepare: (records) => tenancyWallets(deps.keys, records),
    writeOutside: (db, records, wallets) =>
      records.every(isAssetEvent)
        ? writeGroupOptimistically(db, records, wallets, known)
        : Promise.resolve(undefined),
    writeGroup: (tx, records, wallets) => {
      // The assets this group locks may change in it: the next optimistic group reads them again.
      for (const r of records) if (isAssetEvent(r)) known.delete(r.assetId);
      return writeRecords(tx, records, wallets);
    },
    afterCommit,
    maxGroup: 500,
    inFlight: EVENTS_IN_FLIGHT,
  });
  const freeEvents = new GroupCommit<PendingRecord, WrittenRecord>(deps.db, {
    writeGroup: (tx, records) => writeRecords(tx, records, NO_WALLETS),
    afterCommit,
    maxGroup: 500,
    inFlight: FREE_EVENTS_IN_FLIGHT,
  });
  return {
    writeEvent: (event) => events.write(event) as Promise<WrittenEvents>,
    writeFreeEvent: (event) => freeEvents.write(event) as Promise<FreeEventRow>,
    writeAlone: (records, alongside) => events.writeAlone(records, alongside),
    handoff,
  };
}

/** After a group has committed: its asset events handed to this process's committer, its tenancies' committers woken. */
function committed(
  deps: CommitWake,
  handoff: FreshEvents,
  records: PendingRecord[],
  rows: WrittenRecord[],
): void {
  for (const r of rows) if (Array.isArray(r)) handoff.add(r);
  for (const t of new Set(records.map(tenancyOf))) deps.wake.commit(t);
}
