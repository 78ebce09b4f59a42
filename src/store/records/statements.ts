import type { AccessRestriction } from "../../core/access/restriction.js";
import type { Queryable } from "../drivers/db.js";
import { Where } from "../query/sql.js";
import { restrictRows } from "./access-sql.js";
import { EVENT_STATUS_SQL } from "./asset-events.js";

/**
 * What a statement search asks: each given field must match. `issuerTenant` is the tenancy whose
 * own issuer was asked for (statements made from its events); `issuer` matches registered ones.
 */
export interface StatementCriteria {
  subject?: string | undefined;
  issuer?: string | undefined;
  issuerTenant?: string | undefined;
  payload?: string | undefined;
}

/** A statement found among asset events (made from a template-carrying event). */
export interface AssetEventStatementRow {
  seq: number;
  id: string;
  asset_id: string;
  tenant_id: string;
  operation: string;
  event_attributes: Record<string, unknown>;
  timestamp_accepted: Date;
  status: string;
}

/** A statement found among asset-free events: registered (`registered`) or made from the event. */
export interface FreeEventStatementRow {
  seq: number;
  id: string;
  tenant_id: string;
  event_type: string;
  attributes: Record<string, unknown>;
  created_at: number;
  confirmation_status: string;
  registered: boolean;
}

/**
 * Asset events that are statements matching `c`, newest first, before `before` (0: from the
 * newest), among the events `access` lets through. Only events carrying `subject` are
 * statements; the partial indexes of migration 030 serve each form.
 */
export function findAssetEventStatements(
  db: Queryable,
  access: AccessRestriction,
  c: StatementCriteria,
  before: number,
  limit: number,
): Promise<AssetEventStatementRow[]> {
  const w = new Where();
  restrictRows(w, "asset_events", access);
  statementsOf(w, "event_attributes", c);
  // Asset events are never registered statements: only their tenancy's own issuer makes them.
  if (c.issuer !== undefined)
    w.and(c.issuerTenant ? `asset_events.tenant_id = ${w.p(c.issuerTenant)}::uuid` : "false");
  if (before > 0) w.and(`seq < ${w.p(before)}`);
  return db.query<AssetEventStatementRow>(
    `select seq, id, asset_id, tenant_id, operation, event_attributes, timestamp_accepted, ${EVENT_STATUS_SQL} as status
     from asset_events where ${w.sql} order by seq desc limit ${w.p(limit)}`,
    w.params,
  );
}

/** Events carrying a `subject` in `attributes` (their statement's), of the subject and payload asked for. */
function statementsOf(w: Where, attributes: "attributes" | "event_attributes", c: StatementCriteria): void {
  w.and(`(${attributes} ->> 'subject') is not null`);
  if (c.subject !== undefined) w.and(`(${attributes} ->> 'subject') = ${w.p(c.subject)}`);
  if (c.payload !== undefined) w.and(`(${attributes} ->> 'payload') = ${w.p(c.payload)}`);
}

/**
 * One tenancy's asset-free events that are statements matching `c`, newest first, before
 * `before` (0: from the newest): registered statements (their issuer in `scitt_issuer`) and
 * template-carrying events (the tenancy's own issuer).
 */
export function findFreeEventStatements(
  db: Queryable,
  tenantId: string,
  c: StatementCriteria,
  before: number,
  limit: number,
): Promise<FreeEventStatementRow[]> {
  const w = new Where();
  w.and(`tenant_id = ${w.p(tenantId)}::uuid`);
  statementsOf(w, "attributes", c);
  if (c.issuer !== undefined) {
    const registered = `(attributes ->> 'scitt_issuer') = ${w.p(c.issuer)}`;
    // The tenancy's own issuer signs the statements made from its unregistered events.
    w.and(c.issuerTenant === tenantId ? `(${registered} or statement is null)` : registered);
  }
  if (before > 0) w.and(`seq < ${w.p(before)}`);
  return db.query<FreeEventStatementRow>(
    `select seq, id, tenant_id, event_type, attributes, created_at, confirmation_status, statement is not null as registered
     from events where ${w.sql} order by seq desc limit ${w.p(limit)}`,
    w.params,
  );
}
