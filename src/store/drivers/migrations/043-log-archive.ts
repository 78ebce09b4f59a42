/**
 * Closed log periods in object storage (issue 52, docs/scaling.md): `tlog_archive` names each
 * object a tenancy's log moved to the blob store (a C2SP tile or entry bundle by its path, a
 * chunk of MMR nodes, a period's final checkpoint) by the SHA-256 the store keeps it under.
 * `log_periods.archived_at` is set when every object of the period (and of those before it) is
 * stored; `dropped_at` when its node rows left `tlog_nodes` and `mmr_nodes`; `mmr_end` is the
 * MMR size of its final checkpoint.
 */
export const logArchive = {
  id: "043-log-archive",
  sql: `
create table tlog_archive (
  tenant_id uuid not null,
  name text not null,
  sha256 text not null,
  primary key (tenant_id, name)
);
alter table log_periods add column mmr_end bigint;
alter table log_periods add column archived_at timestamptz;
alter table log_periods add column dropped_at timestamptz;
`,
};
