/**
 * Processors a tenancy registers to be told of consent revocations (docs/vcon-lifecycle.md, §2),
 * and one notice per revocation and processor: the lifecycle draft's "a revocation must reach
 * every processor that has not acknowledged it". The notices are the delivery queue (retried with
 * backoff by the notifier worker) and its ledger: what was sent, to whom, how often, and the
 * acknowledgement's own record once the processor answered. `scanned_seq` is how far the
 * tenancy's asset events have been read for revocations, per processor.
 */
export const revocationNotices = {
  id: "048-revocation-notices",
  sql: `
create table consent_processors (
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  display_name text not null,
  url text not null,
  signing_secret text not null,
  scanned_seq bigint not null default 0,
  created_at timestamptz not null default now(),
  created_by text not null
);
create index consent_processors_tenant on consent_processors (tenant_id, created_at);
create table revocation_notices (
  id uuid primary key,
  tenant_id uuid not null references tenancies(id),
  processor_id uuid not null references consent_processors(id) on delete cascade,
  revocation text not null,
  vcon text not null,
  purposes text[] not null,
  revoked_at timestamptz not null,
  state text not null default 'pending',
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  acknowledged_at timestamptz,
  acknowledgement text,
  unique (processor_id, revocation),
  check (state in ('pending', 'acknowledged', 'given_up'))
);
create index revocation_notices_due on revocation_notices (next_attempt_at) where state = 'pending';
create index revocation_notices_vcon on revocation_notices (tenant_id, vcon);
`,
};
