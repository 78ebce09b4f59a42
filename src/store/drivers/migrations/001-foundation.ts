/** Tenancies, keys, application registrations, administrators. */
export const foundation = {
  id: "001-foundation",
  sql: `
create table tenancies (
  id uuid primary key,
  display_name text not null,
  quotas jsonb not null default '{}',
  oidc jsonb,
  created_at timestamptz not null default now()
);
create table signing_keys (
  purpose text primary key,
  kid text not null unique,
  alg text not null,
  private_pkcs8 text not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now()
);
create table applications (
  seq bigserial unique,
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  display_name text not null,
  custom_claims jsonb not null default '{}',
  roles jsonb not null default '[]',
  secret_hash text not null,
  valid_from timestamptz not null,
  valid_until timestamptz not null,
  created_at timestamptz not null default now()
);
create index applications_tenant on applications (tenant_id, seq);
create table root_principals (
  tenant_id uuid not null references tenancies(id),
  issuer text not null,
  subject text not null,
  display_name text not null default '',
  created_at timestamptz not null default now(),
  primary key (tenant_id, issuer, subject)
);
`,
};
