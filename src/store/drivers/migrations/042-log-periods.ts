/**
 * Log periods (issue 52, docs/scaling.md): a tenancy's log is closed at a size, an age or on
 * command, and the next period begins with an entry (`log_entries.kind = 'period'`) that commits
 * the closed period's final checkpoint. One row per period that has begun past period 0, and one
 * for period 0 once it is closed: a log never closed has no rows and is all period 0. `end_size`
 * and `root` are set when the period closes (its final checkpoint is `tlog_checkpoints` at
 * `end_size`); `link_record` is the id of the period's link entry (its `record_id`).
 */
export const logPeriods = {
  id: "042-log-periods",
  sql: `
create table log_periods (
  tenant_id uuid not null,
  period integer not null,
  start_size bigint not null,
  end_size bigint,
  root bytea,
  link_record uuid,
  opened_at timestamptz not null default now(),
  closed_at timestamptz,
  primary key (tenant_id, period)
);
`,
};
