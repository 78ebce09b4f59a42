/**
 * The verifiable index (docs/complete-trails.md). `vindex_entries` files each log entry under the
 * positions of its keys (a VRF output, never the key); `vindex_positions` keeps each position's
 * salt, so the index can be rebuilt from its rows at start. Neither is believed: the rows must
 * reproduce the index root of the last signed revision before anything is signed over them.
 * `vindex_revisions` are the output log's entries (log size, log root, index root, VRF key),
 * `vindex_nodes` its RFC 9162 tree's perfect subtrees, `vindex_checkpoints` its signed notes, and
 * `vindex_cosignatures` and `vindex_witness_sizes` what witnesses cosigned of it (as `tlog_…` for the log).
 */
export const vindex = {
  id: "051-vindex",
  sql: `
create table vindex_positions (
  tenant_id uuid not null,
  position bytea not null,
  salt bytea not null,
  primary key (tenant_id, position)
);
create table vindex_entries (
  tenant_id uuid not null,
  position bytea not null,
  log_index bigint not null,
  primary key (tenant_id, position, log_index)
);
create index vindex_entries_order on vindex_entries (tenant_id, log_index);
create table vindex_revisions (
  tenant_id uuid not null,
  seq bigint not null,
  log_size bigint not null,
  log_root bytea not null,
  index_root bytea not null,
  vrf_key bytea not null,
  primary key (tenant_id, seq)
);
create unique index vindex_revisions_size on vindex_revisions (tenant_id, log_size);
create table vindex_nodes (
  tenant_id uuid not null,
  level smallint not null,
  idx bigint not null,
  hash bytea not null,
  primary key (tenant_id, level, idx)
);
create table vindex_checkpoints (
  tenant_id uuid not null,
  size bigint not null,
  root bytea not null,
  note text not null,
  primary key (tenant_id, size)
);
create table vindex_cosignatures (
  tenant_id uuid not null,
  size bigint not null,
  witness text not null,
  signature_line text not null,
  timestamp_s bigint not null,
  primary key (tenant_id, size, witness)
);
create table vindex_witness_sizes (
  tenant_id uuid not null,
  witness text not null,
  size bigint not null,
  primary key (tenant_id, witness)
);
`,
};
