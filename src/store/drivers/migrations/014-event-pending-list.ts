/**
 * The event attributes' index keeps its pending list (inserts stay cheap, merged in batches) but
 * at most 1 MB of it: every search of the index reads the whole list, and at the default 4 MB a
 * look-up across assets by an event attribute (the conserver's grouped look-ups, any list
 * filtered by a rare value) read ~400 pages first (~15 ms); after the ingest benchmark had filled
 * the table, later conserver operations ran at 549–680/s without the cap and 854–1,092/s with
 * it. 256 kB read less but merged four times as often, in smaller and dearer batches.
 */
export const eventPendingList = {
  id: "014-event-pending-list",
  sql: "alter index asset_events_attrs set (gin_pending_list_limit = 1024);",
};
