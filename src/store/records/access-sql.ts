import { compileReadableAssets, compileReadableEvents } from "../../core/access/index.js";
import type { AccessRestriction, AccessScope } from "../../core/access/restriction.js";
import type { Where } from "../query/sql.js";

/** A compiled condition whose placeholders start at the number it was given. */
type Compiled = { sql: string; params: unknown[] };

/**
 * One tenancy's share of a caller's view of assets (columns unqualified): all of its assets,
 * or, with `readable`, those its access policies let the caller read. `readable` compiles that
 * test for the attributes column, numbering its placeholders from `firstParam`.
 */
function tenancyAssetsClause(
  w: Where,
  tenantId: string,
  readable?: (attributesColumn: string, firstParam: number) => Compiled,
): string {
  const tenant = w.p(tenantId);
  if (!readable) return `(tenant_id = ${tenant})`;
  const c = readable("attributes", w.params.length + 1);
  w.params.push(...c.params);
  return `(tenant_id = ${tenant} and ${c.sql})`;
}

/**
 * One tenancy's share of a caller's view of asset events: all of them, or, with `readable`,
 * those whose event and asset attributes its access policies let the caller read.
 */
function tenancyEventsClause(
  w: Where,
  tenantId: string,
  readable?: (columns: { assetAttributes: string; eventAttributes: string }, firstParam: number) => Compiled,
): string {
  const tenant = w.p(tenantId);
  if (!readable) return `(asset_events.tenant_id = ${tenant})`;
  const c = readable(
    { assetAttributes: "a.attributes", eventAttributes: "asset_events.event_attributes" },
    w.params.length + 1,
  );
  w.params.push(...c.params);
  return `(asset_events.tenant_id = ${tenant} and exists (select 1 from assets a where a.id = asset_events.asset_id and ${c.sql}))`;
}

/** Rows passing any of the clauses; no clause lets no row through. */
function anyClause(clauses: string[]): string {
  return clauses.join(" or ") || "false";
}

/** Restricts a query to the rows passing any of the clauses (`anyClause`). */
export function passingAny(w: Where, clauses: string[]): void {
  w.and(anyClause(clauses));
}

/**
 * Restricts an assets or asset_events query to one tenancy's rows. The column is unqualified:
 * an administrator's event list reads asset_events alone.
 */
export function tenancyOnly(w: Where, tenantId: string): void {
  w.and(`tenant_id = ${w.p(tenantId)}`);
}

/** Restricts an assets or asset_events query to the rows of public assets. */
export function publicOnly(w: Where): void {
  w.and("public");
}

/** The rows a list reads: assets (columns unqualified) or asset events (`asset_events`, no alias). */
type RecordTable = "assets" | "asset_events";

/** One scope's clause over the table: its tenancy's rows, through its policies' SQL twin when it has any. */
function scopeClause(w: Where, table: RecordTable, s: AccessScope): string {
  const p = s.policies;
  if (table === "assets")
    return tenancyAssetsClause(
      w,
      s.tenantId,
      p && ((column, first) => compileReadableAssets(p.policies, p.caller, column, first)),
    );
  return tenancyEventsClause(
    w,
    s.tenantId,
    p && ((columns, first) => compileReadableEvents(p.policies, p.caller, columns, first)),
  );
}

/** Restricts a query over `table` to the rows the restriction lets through. */
export function restrictRows(w: Where, table: RecordTable, r: AccessRestriction): void {
  switch (r.kind) {
    case "tenancy":
      tenancyOnly(w, r.tenantId);
      return;
    case "public":
      publicOnly(w);
      return;
    case "authorised":
      return;
    case "scopes":
      passingAny(
        w,
        r.scopes.map((s) => scopeClause(w, table, s)),
      );
  }
}
