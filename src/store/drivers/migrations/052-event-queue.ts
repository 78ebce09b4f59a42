/**
 * Asset-free events wait for the committer in a queue of their own, as asset events have since
 * 016, instead of being found by their STORED status in a partial index of `events`. The planner
 * chose between that index and ones that also give the order (the unique `seq`, the tenancy's
 * `(tenant_id, seq)`) by the status' statistics, and on statistics analysed while a backlog was
 * being stored (every row STORED: a burst before autovacuum's next visit, or issue 72's million
 * seeded records) every path looked as cheap: it walked the `seq` index through every row committed
 * since, 192,001 rows and ~0.5 s a probe at a fifth of a million, ~2 s further on, and as long again
 * for each commit batch, so a backlog's commit slowed as it went. The queue holds only what waits,
 * so every plan of it reads only that. The status stays on the row, and its partial index for the
 * lists that filter on it.
 *
 * A seal turns the log's COMMITTED asset-free events below its size CONFIRMED
 * (`confirmSealedFreeEvents`). With no index to find them by, that update read the whole table
 * under the log's lock at each seal (0.7 s at a million events) while the committer waited. This is
 * the events' partial index of the COMMITTED (asset events have had theirs since 005): it holds the
 * few rows between a commit and the seal after it, and a stale estimate of them errs towards it.
 */
export const eventQueue = {
  id: "052-event-queue",
  sql: `
create table event_queue (
  tenant_id uuid not null,
  seq bigint not null,
  id uuid not null,
  primary key (tenant_id, seq)
);
insert into event_queue (tenant_id, seq, id) select tenant_id, seq, id from events where confirmation_status = 'STORED';
create index events_committed on events (tenant_id, mmr_index) where confirmation_status = 'COMMITTED';
`,
};
