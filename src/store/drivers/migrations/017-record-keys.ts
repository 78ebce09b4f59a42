/**
 * The foreign keys of the record write path go: an asset event's asset and tenancy, an asset's
 * tenancy, an asset's log head. Each ran a referential-integrity query per inserted row (a
 * look-up and a KEY SHARE lock of the referenced row), which repeated what the writers already
 * do in the same transaction: the event writer creates each event's asset in that transaction
 * or reads it `for share`/`for update` and refuses events of a missing asset with 404, every
 * event takes its asset's tenancy, an asset takes the tenancy of the authenticated caller, and
 * a log head is written for an asset whose event is being committed. Assets and tenancies are
 * never deleted (the interface has no such operation). Under the conserver load the checks
 * cost ~8 % of the machine's CPU per new vCon (three interleaved pairs: 1.55 → 1.42 ms).
 */
export const recordKeys = {
  id: "017-record-keys",
  sql: `
alter table asset_events drop constraint asset_events_asset_id_fkey;
alter table asset_events drop constraint asset_events_tenant_id_fkey;
alter table assets drop constraint assets_tenant_id_fkey;
alter table asset_log_heads drop constraint asset_log_heads_asset_id_fkey;
`,
};
