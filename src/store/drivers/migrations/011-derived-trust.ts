/**
 * Trust levels above COMMITTED are derived, not written: an event of a MERKLE_LOG asset is
 * CONFIRMED once a seal covers its index and UNEQUIVOCAL once that seal is anchored, so the
 * sealer and anchorer write one row per seal instead of rewriting every event row (with all
 * of its indexes) twice. The anchoring goes on the seal. The highest log index of each
 * asset's events (which the lowest status among them follows) is kept apart from the asset
 * row, so the committer never takes the row lock that event writers share. The indexes that
 * served the rewrites would now cover every committed event, so they go.
 */
export const derivedTrust = {
  id: "011-derived-trust",
  sql: `
alter table seals add column anchor_block_hash text;
alter table seals add column anchor_tx_hash text;
alter table seals add column anchor_tx_index bigint;
create table asset_log_heads (
  asset_id uuid primary key references assets(id),
  last_mmr_index bigint not null
);
insert into asset_log_heads (asset_id, last_mmr_index)
  select e.asset_id, max(e.mmr_index) from asset_events e
  where e.mmr_index is not null and e.proof_mechanism = 'MERKLE_LOG' group by e.asset_id;
drop index asset_events_committed;
drop index asset_events_confirmed;
drop index asset_events_asset_committed;
drop index asset_events_asset_confirmed;
`,
};
