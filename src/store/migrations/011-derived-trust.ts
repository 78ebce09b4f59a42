/**
 * Trust levels above COMMITTED are derived, not written: an event of a MERKLE_LOG asset is
 * CONFIRMED once a seal covers its index and UNEQUIVOCAL once that seal is anchored, so the
 * sealer and anchorer write one row per seal instead of rewriting every event row (with all
 * of its indexes) twice. The anchoring goes on the seal; an asset keeps the highest index of
 * its events, which the lowest status among them follows. The indexes that served those
 * rewrites would now cover every committed event, so they go.
 */
export const derivedTrust = {
  id: "011-derived-trust",
  sql: `
alter table seals add column anchor_block_hash text;
alter table seals add column anchor_tx_hash text;
alter table seals add column anchor_tx_index bigint;
alter table assets add column last_mmr_index bigint;
update assets a set last_mmr_index = (select max(e.mmr_index) from asset_events e where e.asset_id = a.id)
  where a.proof_mechanism = 'MERKLE_LOG';
drop index asset_events_committed;
drop index asset_events_confirmed;
drop index asset_events_asset_committed;
drop index asset_events_asset_confirmed;
`,
};
