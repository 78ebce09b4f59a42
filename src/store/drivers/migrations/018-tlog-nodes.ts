/**
 * The second commitment over each log's entries: an RFC 9162 (SHA-256) Merkle tree, kept as
 * every perfect subtree (level 0 = leaf hashes, level k index i = the subtree over leaves
 * [i·2^k, (i+1)·2^k)). Appends only add rows, like `mmr_nodes`; roots and proofs are right
 * folds of these, and C2SP tiles are ranges of them. `logs.tree_size` is how many entries
 * the tree holds: entries committed before it existed are appended by the backfill.
 */
export const tlogNodes = {
  id: "018-tlog-nodes",
  sql: `
create table tlog_nodes (
  tenant_id uuid not null,
  level smallint not null,
  idx bigint not null,
  hash bytea not null,
  primary key (tenant_id, level, idx)
);
alter table logs add column tree_size bigint not null default 0;
`,
};
