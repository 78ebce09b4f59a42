/**
 * The index's entries are kept a revision to a row (`vindex_filings`), not a row per entry. Each
 * row holds what one revision filed, log entries [log_from, log_to): its entries packed as
 * position ‖ u64be(log index), 40 bytes each, and the salts of the positions it saw first, as
 * position ‖ salt, 64 bytes each (`src/store/ledger/vindex-filings.ts`). A row per entry put two
 * b-tree entries under a random 32-byte key for every key of every record: under the conserver's
 * load that was a tenth of the database's statement time and most of its WAL, where a revision's
 * one row costs what one insert does. Nothing reads one position's entries from the rows: the
 * index in memory keeps each position's list, read from these rows and believed only once it gives
 * the signed root, as before. The columns are stored uncompressed (positions and salts are
 * random: compressing them costs and never shrinks them).
 *
 * The rows of 051's tables become one filing per log, up to its newest revision, and go.
 */
export const vindexFilings = {
  id: "053-vindex-filings",
  sql: `
create table vindex_filings (
  tenant_id uuid not null,
  log_from bigint not null,
  log_to bigint not null,
  entries bytea not null,
  salts bytea not null,
  primary key (tenant_id, log_to)
);
alter table vindex_filings alter column entries set storage external, alter column salts set storage external;
insert into vindex_filings (tenant_id, log_from, log_to, entries, salts)
select r.tenant_id, 0, r.log_size,
  coalesce((select string_agg(e.position || int8send(e.log_index), ''::bytea order by e.log_index, e.position)
            from vindex_entries e where e.tenant_id = r.tenant_id and e.log_index < r.log_size), ''::bytea),
  coalesce((select string_agg(p.position || p.salt, ''::bytea order by p.position)
            from vindex_positions p where p.tenant_id = r.tenant_id), ''::bytea)
from (select distinct on (tenant_id) tenant_id, log_size from vindex_revisions order by tenant_id, seq desc) r;
drop table vindex_entries;
drop table vindex_positions;
`,
};
