/**
 * How many of a tenancy's asset-free events carry each trail, kept by the statement that stores
 * them. `events/search` must answer an exact `x-total-count` (clients page with `skip` until
 * `skip` plus the page reaches it), and counting a busy trail's matches read every one of them:
 * ~300 ms at 1,000,000 events. Every group of creates already takes its tenancy's usage-counter
 * row lock, so these rows add no wait of their own. The trail `''` (which no event may carry)
 * stands for all of the tenancy's events, the total of a search without a filter.
 */
export const eventTrailCounts = {
  id: "028-event-trail-counts",
  sql: `
create table event_trail_counts (
  tenant_id uuid not null,
  trail text not null,
  n bigint not null,
  primary key (tenant_id, trail)
);
insert into event_trail_counts (tenant_id, trail, n)
  select tenant_id, trail, count(*) from (
    select e.tenant_id, t.trail from events e, lateral (select distinct u as trail from unnest(e.trails) u) t
    where t.trail <> ''
    union all select tenant_id, '' from events
  ) x group by tenant_id, trail;
`,
};
