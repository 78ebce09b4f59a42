/** Asset trust level kept with the asset (the lowest of its events), so lists filter on an index. */
export const assetStatus = {
  id: "005-asset-status",
  sql: `
alter table assets add column confirmation_status text not null default 'PENDING';
create index assets_status on assets (tenant_id, confirmation_status);
alter table asset_events add column from_address text not null default '';
create index asset_events_committed on asset_events (tenant_id, mmr_index) where confirmation_status = 'COMMITTED';
create index asset_events_confirmed on asset_events (tenant_id, mmr_index) where confirmation_status = 'CONFIRMED';
create index asset_events_simple on asset_events (tenant_id, seq) where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH';
create index asset_events_accepted on asset_events (tenant_id, timestamp_accepted);
`,
};
