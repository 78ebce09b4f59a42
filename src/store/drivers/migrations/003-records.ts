/** Assets, asset events, asset-free events, locations, blobs, compliance policies. */
export const records = {
  id: "003-records",
  sql: `
create table assets (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  behaviours jsonb not null default '[]',
  attributes jsonb not null default '{}',
  proof_mechanism text not null,
  public boolean not null default false,
  chain_id text not null default '',
  tracked text not null default 'TRACKED',
  owner text not null default '',
  created_at timestamptz not null default now()
);
create index assets_tenant on assets (tenant_id, tracked, seq);
create index assets_attributes on assets using gin (attributes jsonb_path_ops);
create table asset_events (
  seq bigserial unique,
  id uuid primary key,
  asset_id uuid not null references assets(id),
  tenant_id uuid not null references tenancies(id),
  operation text not null,
  behaviour text not null,
  event_attributes jsonb not null default '{}',
  asset_attributes jsonb not null default '{}',
  timestamp_declared timestamptz not null,
  timestamp_accepted timestamptz not null,
  timestamp_committed timestamptz,
  principal_declared jsonb not null,
  principal_accepted jsonb not null,
  confirmation_status text not null,
  proof_mechanism text not null,
  public boolean not null default false,
  mmr_index bigint,
  idtimestamp text,
  merklelog_entry jsonb,
  transaction_id text not null default '',
  block_number bigint not null default 0,
  transaction_index bigint not null default 0
);
create index asset_events_asset on asset_events (asset_id, seq);
create index asset_events_tenant on asset_events (tenant_id, seq);
create index asset_events_stored on asset_events (tenant_id, seq) where confirmation_status = 'STORED';
create index asset_events_attrs on asset_events using gin (event_attributes jsonb_path_ops);
create index asset_events_asset_attrs on asset_events using gin (asset_attributes jsonb_path_ops);
create table events (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  attributes jsonb not null default '{}',
  trails text[] not null default '{}',
  event_type text not null default '',
  created_by text not null default '',
  created_at bigint not null,
  confirmation_status text not null,
  mmr_index bigint,
  idtimestamp text,
  content_hash text,
  statement bytea
);
create index events_tenant on events (tenant_id, seq);
create index events_stored on events (tenant_id, seq) where confirmation_status = 'STORED';
create index events_trails on events using gin (trails);
create table locations (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  display_name text not null default '',
  description text not null default '',
  latitude double precision,
  longitude double precision,
  attributes jsonb not null default '{}',
  owner text not null default '',
  permissions jsonb not null default '{"subject_identities": []}',
  created_at timestamptz not null default now()
);
create table blobs (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  hash text not null,
  size bigint not null,
  mime_type text not null,
  issuer text not null default '',
  subject text not null default '',
  timestamp_accepted timestamptz not null default now(),
  scanned_status text not null default 'NOT_SCANNED',
  scanned_bad_reason text not null default '',
  scanned_timestamp timestamptz
);
create index blobs_unscanned on blobs (seq) where scanned_status = 'NOT_SCANNED';
create table blob_contents (
  hash text primary key,
  bytes bytea not null
);
create table compliance_policies (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  compliance_type text not null,
  display_name text not null default '',
  body jsonb not null,
  created_at timestamptz not null default now()
);
`,
};
