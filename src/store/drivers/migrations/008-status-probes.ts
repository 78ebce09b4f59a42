/** Per-asset probes of each lower trust level, so an asset's status is a few index lookups, not a scan of its events. */
export const statusProbes = {
  id: "008-status-probes",
  sql: `
create index asset_events_asset_stored on asset_events (asset_id) where confirmation_status = 'STORED';
create index asset_events_asset_committed on asset_events (asset_id) where confirmation_status = 'COMMITTED';
create index asset_events_asset_confirmed on asset_events (asset_id) where confirmation_status = 'CONFIRMED';
`,
};
