/**
 * The event attributes' index keeps its pending list (inserts stay cheap, merged in batches) but
 * at most 256 kB of it: every search of the index reads the whole list, and at the default 4 MB
 * a look-up across assets by an event attribute (the conserver's grouped look-ups, any list
 * filtered by a rare value) read ~400 pages first (~15 ms).
 */
export const eventPendingList = {
  id: "014-event-pending-list",
  sql: "alter index asset_events_attrs set (gin_pending_list_limit = 256);",
};
