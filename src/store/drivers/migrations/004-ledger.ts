/** The Merkle logs, their seals and the archivist node chain. */
export const ledger = {
  id: "004-ledger",
  sql: `
create table logs (
  tenant_id uuid primary key references tenancies(id),
  mmr_size bigint not null default 0,
  last_idtimestamp text not null default '',
  sealed_size bigint not null default 0
);
create table mmr_nodes (
  tenant_id uuid not null,
  idx bigint not null,
  hash bytea not null,
  primary key (tenant_id, idx)
);
create table log_entries (
  tenant_id uuid not null,
  mmr_index bigint not null,
  leaf_index bigint not null,
  kind text not null,
  record_id uuid not null,
  idtimestamp text not null,
  leaf bytea not null,
  primary key (tenant_id, mmr_index)
);
create index log_entries_record on log_entries (record_id);
create table seals (
  tenant_id uuid not null,
  mmr_size bigint not null,
  seal bytea not null,
  peaks jsonb not null,
  timestamp_ms bigint not null,
  idtimestamp text not null,
  anchored_block bigint,
  primary key (tenant_id, mmr_size)
);
create table blocks (
  number bigint primary key,
  hash text not null unique,
  parent_hash text not null,
  timestamp_ms bigint not null,
  transaction_root text not null,
  body jsonb not null
);
create table simple_hash_windows (
  tenant_id uuid not null,
  start_time timestamptz not null,
  end_time timestamptz not null,
  anchor_hash text not null,
  event_count bigint not null,
  block_number bigint,
  transaction jsonb,
  primary key (tenant_id, start_time)
);
`,
};
