/**
 * A record's log entry is found by its record and its tenancy (`OWN_LOG_ENTRY` in
 * asset-events.ts names both, so that a partitioned log is probed in the tenancy's partition
 * alone). With an index on `record_id` only, the planner could not answer both from one index:
 * on the statistics a live table has before autovacuum analyses it, it ANDed the record index with
 * the primary key's tenancy prefix, reading every entry of the tenancy for each event whose status
 * it derived (issue 59: a list by status read 168,273 buffers at 18,000 records, 12,069 at 900).
 * One index on both answers the probe alone, and still serves a look-up by record alone.
 *
 * A list of assets by an unsettled status (store/records/unsettled.ts) reads the assets whose status is
 * kept on their row (not MERKLE_LOG) from a partial index of those rows: a handful, where the
 * tenancy-and-status index needs the tenancy; and where a log's CONFIRMED entries can start from
 * a partial index of the seals not yet anchored and witnessed (the few the anchorer has not
 * reached, where anchoring is on).
 */
export const logEntryByRecord = {
  id: "049-log-entry-by-record",
  sql: `
create index log_entries_record_tenant on log_entries (record_id, tenant_id);
drop index log_entries_record;
create index assets_unsettled_rows on assets (seq)
  where proof_mechanism <> 'MERKLE_LOG' and confirmation_status in ('PENDING', 'STORED', 'COMMITTED', 'CONFIRMED');
create index seals_unsettled on seals (tenant_id, mmr_size) where anchored_block is null or not witnessed;
`,
};
