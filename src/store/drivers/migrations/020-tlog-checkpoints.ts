/**
 * C2SP checkpoints of each tenancy's RFC 9162 tree (issue #26): one signed note per seal, the
 * witnesses' cosignatures on them, and the size each witness last cosigned (the `old` size of
 * the next submission). A seal made while witnesses are configured is `witnessed` only once a
 * quorum has cosigned a checkpoint at or beyond it; its records read as UNEQUIVOCAL only then.
 * Seals made before (or with no witnesses configured) are witnessed by definition. The partial
 * indexes keep the published checkpoint's look-up and the quorum's marking to the few rows
 * near the log's end, however many checkpoints a log has.
 */
export const tlogCheckpoints = {
  id: "020-tlog-checkpoints",
  sql: `
create table tlog_checkpoints (
  tenant_id uuid not null,
  size bigint not null,
  mmr_size bigint not null,
  origin text not null,
  root bytea not null,
  note text not null,
  witnessed boolean not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, size)
);
create table tlog_cosignatures (
  tenant_id uuid not null,
  size bigint not null,
  witness text not null,
  signature_line text not null,
  timestamp_s bigint not null,
  primary key (tenant_id, size, witness)
);
create table tlog_witness_sizes (
  tenant_id uuid not null,
  witness text not null,
  size bigint not null,
  primary key (tenant_id, witness)
);
alter table seals add column witnessed boolean not null default true;
create index tlog_checkpoints_witnessed on tlog_checkpoints (tenant_id, size) where witnessed;
create index tlog_checkpoints_unwitnessed on tlog_checkpoints (tenant_id, size) where not witnessed;
create index seals_unwitnessed on seals (tenant_id, mmr_size) where not witnessed;
`,
};
