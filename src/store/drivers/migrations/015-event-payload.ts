/**
 * Template 0.3.0's `payload` (the SHA-256 of one vCon version) gets an index of its own: it is
 * the key a conserver delivery looks an event up by before recording it, many at a time. Through
 * the attributes' GIN index every such look-up read the index's whole pending list (~5 ms a
 * grouped look-up under load); a btree finds each value in a few pages. `KEYED_ATTRIBUTES`
 * (attribute-sql.ts) writes filters on it in the form this index serves.
 */
export const eventPayload = {
  id: "015-event-payload",
  sql: "create index asset_events_payload on asset_events ((event_attributes ->> 'payload'));",
};
