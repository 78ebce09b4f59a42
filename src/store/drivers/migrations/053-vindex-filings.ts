/**
 * The index's entries are kept a revision to a row (`vindex_filings`), not a row per entry. Each
 * row holds what one revision filed, log entries [log_from, log_to): its entries packed as
 * position ‖ u64be(log index), 40 bytes each, and the salts of the positions it saw first, as
 * position ‖ salt, 64 bytes each (`src/store/ledger/vindex-filings.ts`). A row per entry put two
 * b-tree entries under a random 32-byte key for every key of every record: under the conserver's
 * load that was a tenth of the database's statement time and a sixth of its statements' WAL, where
 * a revision's one row costs what one insert does. Nothing reads one position's entries from the rows: the
 * index in memory keeps each position's list, read from these rows and believed only once it gives
 * the signed root, as before. The columns are stored uncompressed (positions and salts are
 * random: compressing them costs and never shrinks them).
 *
 * The rows of 051's tables become one filing per revision (its log range from the revisions'
 * sizes, each position's salt in the filing of its first entry), and go: one filing per log
 * would be one value of 40 bytes an entry, past PostgreSQL's 1 GB at ~26 million.
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
select r.tenant_id, r.log_from, r.log_size,
  coalesce(string_agg(e.position || int8send(e.log_index), ''::bytea order by e.log_index, e.position), ''::bytea),
  ''::bytea
from (select tenant_id, log_size, coalesce(lag(log_size) over (partition by tenant_id order by seq), 0) as log_from
      from vindex_revisions) r
left join vindex_entries e on e.tenant_id = r.tenant_id and e.log_index >= r.log_from and e.log_index < r.log_size
group by r.tenant_id, r.log_from, r.log_size;
update vindex_filings f set salts = s.salts
from (select r.tenant_id, r.log_size,
        string_agg(x.position || p.salt, ''::bytea order by x.position) as salts
      from (select tenant_id, position, min(log_index) as first from vindex_entries group by tenant_id, position) x
      join vindex_positions p on p.tenant_id = x.tenant_id and p.position = x.position
      join (select tenant_id, log_size, coalesce(lag(log_size) over (partition by tenant_id order by seq), 0) as log_from
            from vindex_revisions) r on r.tenant_id = x.tenant_id and x.first >= r.log_from and x.first < r.log_size
      group by r.tenant_id, r.log_size) s
where f.tenant_id = s.tenant_id and f.log_to = s.log_size;
drop table vindex_entries;
drop table vindex_positions;
`,
};
