/** Members, invites, subjects, TLS CA certificates, access policies. */
export const identity = {
  id: "002-identity",
  sql: `
create table members (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  email text not null,
  display_name text not null default '',
  roles jsonb not null default '[]',
  active boolean not null default true,
  created_at timestamptz not null default now(),
  unique (tenant_id, email)
);
create table invites (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  email text not null,
  message text not null default '',
  expiry_time timestamptz not null,
  code_hash text not null,
  created_at timestamptz not null default now()
);
create table subjects (
  seq bigserial unique,
  tenant_id uuid not null references tenancies(id),
  id uuid not null,
  display_name text not null,
  wallet_pub_key jsonb not null default '[]',
  tessera_pub_key jsonb not null default '[]',
  wallet_address jsonb not null default '[]',
  confirmation_status text not null default 'PENDING',
  created_at timestamptz not null default now(),
  primary key (tenant_id, id)
);
create table tlscacertificates (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  display_name text not null default '',
  pem text not null,
  created_at timestamptz not null default now()
);
create table access_policies (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  display_name text not null default '',
  description text not null default '',
  filters jsonb not null default '[]',
  access_permissions jsonb not null default '[]',
  created_at timestamptz not null default now()
);
create index access_policies_tenant on access_policies (tenant_id, seq);
`,
};
