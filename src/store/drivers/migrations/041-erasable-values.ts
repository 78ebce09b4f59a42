/**
 * The evidentiary store beside the log (docs/vcon-lifecycle.md, §4): the value and salt of each
 * erasable attribute, keyed by the commitment its record holds instead, and which attributes each
 * tenancy makes erasable. Erasing a value deletes it and its salt and keeps who erased it, when,
 * why, and the erasure's own record; the record, its leaf and its receipts never change.
 */
export const erasableValues = {
  id: "041-erasable-values",
  sql: `
create table erasable_values (
  commitment text primary key,
  tenant_id uuid not null,
  value text,
  salt text,
  created_at timestamptz not null default now(),
  erased_at timestamptz,
  erased_by text,
  erasure_basis text,
  erasure_record text,
  check ((value is null) = (salt is null)),
  check ((value is null) = (erased_at is not null))
);
create table erasure_policies (
  tenant_id uuid primary key,
  attributes text[] not null,
  updated_at timestamptz not null default now()
);
`,
};
