import type { ODataColumnMap } from "../../../../src/core/odata/ast.js";
import type { ODataRecord } from "../../../../src/core/odata/evaluate.js";

/** The column map the tests compile against; names double as mini-sql row keys. */
export const COLUMNS: ODataColumnMap = {
  trails: { sql: "e.trails", type: "text[]" },
  event_type: { sql: "e.event_type", type: "text" },
  origin_tenant: { sql: "e.origin_tenant", type: "text" },
  created_by: { sql: "e.created_by", type: "text" },
  created_at: { sql: "e.created_at", type: "bigint" },
  "ledger_entry/index": { sql: "e.mmr_index", type: "bigint" },
  "ledger_entry/idtimestamp": { sql: "e.idtimestamp", type: "text" },
  "ledger_entry/content_hash": { sql: "e.content_hash", type: "text" },
  attributes: { sql: "e.attributes", type: "jsonb-text" },
};

/** The record as database columns (the names of `COLUMNS`). */
export function row(r: ODataRecord): Record<string, unknown> {
  const int = (v: number | bigint | string | null | undefined) =>
    v === null || v === undefined ? null : BigInt(v);
  return {
    "e.trails": r.trails ?? null,
    "e.event_type": r.event_type ?? null,
    "e.origin_tenant": r.origin_tenant ?? null,
    "e.created_by": r.created_by ?? null,
    "e.created_at": int(r.created_at),
    "e.mmr_index": int(r.ledger_entry?.index),
    "e.idtimestamp": r.ledger_entry?.idtimestamp ?? null,
    "e.content_hash": r.ledger_entry?.content_hash ?? null,
    "e.attributes": r.attributes ?? null,
  };
}
