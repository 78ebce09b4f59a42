/** Statement issuer keys a tenancy trusts for SCITT registration. */
export const scitt = {
  id: "007-scitt",
  sql: `
create table scitt_keys (
  tenant_id uuid not null references tenancies(id),
  kid text not null,
  display_name text not null default '',
  public_jwk jsonb not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, kid)
);
`,
};
