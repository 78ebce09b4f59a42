import type { CommitWake, Ctx } from "../../context.js";
import { FreshEvents } from "../../store/fresh-events.js";
import { type EventBatcher, newEventBatcher } from "./event-batcher.js";
import { type FreeEventBatcher, newFreeEventBatcher } from "./free-event-batcher.js";

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

export function openWritePath(deps: Pick<Ctx, "db" | "keys" | "caches"> & CommitWake): WritePath {
  const handoff = new FreshEvents();
  return {
    events: newEventBatcher(deps, handoff),
    freeEvents: newFreeEventBatcher(deps),
    handoff,
  };
}
