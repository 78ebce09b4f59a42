/**
 * MERKLE_LOG events wait for the committer in a queue of their own instead of being found by a
 * STORED status that the committer then rewrote. The rewrite was never a HOT update (the status
 * is in index predicates), so committing an event re-entered all of its indexes, the two GIN
 * ones included: ~50 µs a row, PostgreSQL's costliest statement under the conserver load. Now
 * the event row is written once; the committer deletes the event's queue row in the
 * transaction that writes its log entry, and reads take COMMITTED, the index and the
 * idtimestamp from that entry. SIMPLE_HASH events keep their STORED rows until anchored.
 */
export const commitQueue = {
  id: "016-commit-queue",
  sql: `
create table asset_event_queue (
  id uuid not null,
  tenant_id uuid not null,
  seq bigint not null,
  asset_id uuid not null
);
create index asset_event_queue_tenant on asset_event_queue (tenant_id, seq);
create index asset_event_queue_asset on asset_event_queue (asset_id);
insert into asset_event_queue (id, tenant_id, seq, asset_id)
  select id, tenant_id, seq, asset_id from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'MERKLE_LOG';
drop index asset_events_stored;
drop index asset_events_asset_stored;
create index asset_events_asset_simple on asset_events (asset_id) where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH';
`,
};
