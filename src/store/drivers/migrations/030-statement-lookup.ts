/**
 * Finding statements by subject, issuer and payload hash (`GET /archivist/v1/statements`). A
 * statement is a registered one (an asset-free event carrying `scitt_issuer`) or one made from a
 * template-carrying event (its subject, payload and the tenancy as issuer). Each look-up walks
 * its index newest first (`seq` in the key), so a page costs a few index pages however many
 * statements share the value; the attribute GIN indexes would read every match to order them.
 * Partial: only rows that carry a subject are statements.
 */
export const statementLookup = {
  id: "030-statement-lookup",
  sql: `
create index asset_events_subject on asset_events ((event_attributes ->> 'subject'), seq) where (event_attributes ->> 'subject') is not null;
create index asset_events_statements on asset_events (tenant_id, seq) where (event_attributes ->> 'subject') is not null;
create index events_subject on events ((attributes ->> 'subject'), seq) where (attributes ->> 'subject') is not null;
create index events_issuer on events ((attributes ->> 'scitt_issuer'), seq) where (attributes ->> 'scitt_issuer') is not null;
create index events_payload on events ((attributes ->> 'payload'), seq) where (attributes ->> 'payload') is not null;
`,
};
