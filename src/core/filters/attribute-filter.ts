/**
 * One dotted query-string filter over a jsonb attribute map. `match`: the attribute's
 * `->>` text is one of `values`, or (when `present`) is non-empty; `missing`: absent or empty.
 * A key repeated in the query ORs its values into one filter; distinct filters AND.
 */
export type AttributeFilter =
  | { kind: "match"; prefix: string; name: string; values: string[]; present: boolean }
  | { kind: "missing"; prefix: string; name: string };

/** Attribute maps of one record by prefix, e.g. `{ event_attributes: {...}, asset_attributes: {...} }`. */
export type AttributeRecord = Readonly<Record<string, Readonly<Record<string, unknown>> | null | undefined>>;
