/** Per-tenancy usage counters: quota checks without counting large tables. */
export const usage = {
  id: "006-usage",
  sql: `
create table usage_counters (
  tenant_id uuid not null references tenancies(id),
  kind text not null,
  n bigint not null default 0,
  primary key (tenant_id, kind)
);
`,
};
