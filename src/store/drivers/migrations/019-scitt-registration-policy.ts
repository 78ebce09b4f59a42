/**
 * Per-tenancy SCITT registration policy: whether statements may be registered in the
 * tenancy's log by their signature alone (no bearer token), and at what rate. Which issuers
 * are trusted stays where it was (`scitt_keys`, the tenancy's TLS CA certificates).
 */
export const scittRegistrationPolicy = {
  id: "019-scitt-registration-policy",
  sql: `
create table scitt_registration_policies (
  tenant_id uuid primary key,
  open boolean not null default false,
  requests_per_second integer not null default 10,
  updated_at timestamptz not null default now()
);
`,
};
