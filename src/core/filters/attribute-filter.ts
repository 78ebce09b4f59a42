/**
 * One dotted query-string filter over a jsonb attribute map. `match`: the attribute is one of
 * `values`, or (when `present`) is non-empty; `missing`: absent or empty. The store turns it
 * into SQL (`store/records/attribute-sql.ts`).
 * A key repeated in the query ORs its values into one filter; distinct filters AND.
 */
export type AttributeFilter =
  | { kind: "match"; prefix: string; name: string; values: string[]; present: boolean }
  | { kind: "missing"; prefix: string; name: string };
