/** Identity and access additions: the other organisation's tenant on imported subjects, list indexes. */
export const identityExtra = {
  id: "010-identity-extra",
  sql: `
alter table subjects add column tenant text not null default '';
create index invites_tenant on invites (tenant_id, seq);
create index subjects_tenant on subjects (tenant_id, seq);
create index tlscacertificates_tenant on tlscacertificates (tenant_id, seq);
create index members_tenant on members (tenant_id, seq);
`,
};
