import type { Ctx, Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { isoTime, isUuid } from "../../formats/ids.js";
import {
  type AssetEventStatementRow,
  type FreeEventStatementRow,
  findAssetEventStatements,
  findFreeEventStatements,
  type StatementCriteria,
} from "../../store/records/statements.js";
import { viewFor } from "../access/caller-view.js";

/** A statement as the search returns it: what it says, and where its record is. */
export interface FoundStatement {
  /** The record's identity: `assets/<a>/events/<e>` or `events/<e>`. */
  identity: string;
  /** `registered`: a signed statement registered through SCRAPI; otherwise made from the event. */
  kind: "registered" | "asset_event" | "event";
  /** SCRAPI entry id of a registered statement. */
  entry_id?: string;
  subject: string;
  issuer: string;
  payload_hash: string;
  payload_hash_alg: string;
  payload_preimage_content_type: string;
  /** The event's operation or display type (`vcon_created`, …). */
  event_type: string;
  timestamp_accepted: string;
  confirmation_status: string;
}

/** Where a search is in each of its two streams: the last `seq` returned, 0 at the start, -1 when done. */
export interface StatementCursor {
  assetEvents: number;
  freeEvents: number;
}

export interface StatementQuery {
  subject?: string | undefined;
  issuer?: string | undefined;
  payload_hash?: string | undefined;
}

const text = (attrs: Record<string, unknown>, name: string) => {
  const v = attrs[name];
  return typeof v === "string" ? v : "";
};

/** The issuer of the statements made from a tenancy's events (as `eventToStatement` signs them). */
function tenancyIssuerUrl(ctx: Pick<Ctx, "baseUrl">, tenantId: string): string {
  return `${ctx.baseUrl}/tenant/${tenantId}`;
}

/** The criteria of a query, checked: at least one field, a payload hash in hex. */
function criteriaOf(ctx: Pick<Ctx, "baseUrl">, q: StatementQuery): StatementCriteria {
  const given = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
  const subject = given(q.subject);
  const issuer = given(q.issuer);
  let payload = given(q.payload_hash);
  if (subject === undefined && issuer === undefined && payload === undefined)
    throw badRequest("give at least one of subject, issuer and payload_hash");
  if (payload !== undefined) {
    if (!/^[0-9a-f]{64}$/i.test(payload))
      throw badRequest("payload_hash must be a SHA-256 digest in hex (64 characters)");
    payload = payload.toLowerCase();
  }
  const prefix = `${ctx.baseUrl}/tenant/`;
  const tail = issuer?.startsWith(prefix) ? issuer.slice(prefix.length).toLowerCase() : undefined;
  return { subject, issuer, payload, issuerTenant: tail && isUuid(tail) ? tail : undefined };
}

function fromAssetEvent(ctx: Pick<Ctx, "baseUrl">, r: AssetEventStatementRow): FoundStatement {
  const a = r.event_attributes;
  return {
    identity: `assets/${r.asset_id}/events/${r.id}`,
    kind: "asset_event",
    subject: text(a, "subject"),
    issuer: tenancyIssuerUrl(ctx, r.tenant_id),
    payload_hash: text(a, "payload"),
    payload_hash_alg: text(a, "payload_hash_alg"),
    payload_preimage_content_type: text(a, "payload_preimage_content_type"),
    event_type: text(a, "arc_display_type") || r.operation,
    timestamp_accepted: isoTime(r.timestamp_accepted),
    confirmation_status: r.status,
  };
}

function fromFreeEvent(ctx: Pick<Ctx, "baseUrl">, r: FreeEventStatementRow): FoundStatement {
  const a = r.attributes;
  return {
    identity: `events/${r.id}`,
    kind: r.registered ? "registered" : "event",
    ...(r.registered ? { entry_id: `events_${r.id}` } : {}),
    subject: text(a, "subject"),
    issuer: text(a, "scitt_issuer") || tenancyIssuerUrl(ctx, r.tenant_id),
    payload_hash: text(a, "payload"),
    payload_hash_alg: text(a, "payload_hash_alg"),
    payload_preimage_content_type: text(a, "payload_preimage_content_type"),
    event_type: text(a, "arc_display_type") || r.event_type,
    timestamp_accepted: isoTime(Number(r.created_at)),
    confirmation_status: r.confirmation_status,
  };
}

/**
 * Statements the caller may read matching the query, newest first within each stream (asset
 * events, asset-free events), the two merged by time. Asset events pass the caller's view
 * (policies, sharing); asset-free events, registered statements among them, are read by their
 * tenancy's administrators only, as every other read of them. A statement the caller may not
 * read is never found, nor counted.
 */
export async function searchStatements(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "reads">,
  p: Principal,
  q: StatementQuery,
  cursor: StatementCursor,
  pageSize: number,
): Promise<{ statements: FoundStatement[]; next: StatementCursor | undefined }> {
  const c = criteriaOf(ctx, q);
  const limit = pageSize + 1;
  const view = await viewFor(ctx, p);
  const assetRows =
    cursor.assetEvents < 0
      ? []
      : await findAssetEventStatements(ctx.reads, view.restriction, c, cursor.assetEvents, limit);
  const freeRows =
    cursor.freeEvents < 0 || !p.isAdmin
      ? []
      : await findFreeEventStatements(ctx.reads, p.tenantId, c, cursor.freeEvents, limit);
  const merged = mergeNewestFirst(
    assetRows.map((r) => ({ seq: Number(r.seq), at: new Date(r.timestamp_accepted).getTime(), row: r })),
    freeRows.map((r) => ({ seq: Number(r.seq), at: Number(r.created_at), row: r })),
    pageSize,
    { a: cursor.assetEvents, b: cursor.freeEvents },
  );
  const statements = merged.items.map((m) =>
    m.from === "a"
      ? fromAssetEvent(ctx, m.row as AssetEventStatementRow)
      : fromFreeEvent(ctx, m.row as FreeEventStatementRow),
  );
  const next = {
    assetEvents: cursor.assetEvents < 0 ? -1 : merged.next.a,
    freeEvents: cursor.freeEvents < 0 || !p.isAdmin ? -1 : merged.next.b,
  };
  return { statements, next: next.assetEvents < 0 && next.freeEvents < 0 ? undefined : next };
}

interface Item<T> {
  seq: number;
  at: number;
  row: T;
}

/**
 * Merges two newest-first streams (each fetched one past the page) into one page, by time. Each
 * stream's next cursor is the last `seq` taken from it (unchanged when none was), or -1 when the
 * page took all it had: the streams keep their own order, so no row is skipped or repeated.
 */
function mergeNewestFirst<A, B>(
  a: Item<A>[],
  b: Item<B>[],
  pageSize: number,
  start: { a: number; b: number },
): { items: Array<{ from: "a" | "b"; row: A | B }>; next: { a: number; b: number } } {
  const items: Array<{ from: "a" | "b"; row: A | B }> = [];
  let i = 0;
  let j = 0;
  while (items.length < pageSize && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (x && (!y || x.at >= y.at)) {
      items.push({ from: "a", row: x.row });
      i++;
    } else if (y) {
      items.push({ from: "b", row: y.row });
      j++;
    }
  }
  const after = <T>(s: Item<T>[], taken: number, from: number) => {
    if (from < 0 || (taken >= s.length && s.length <= pageSize)) return -1;
    return taken > 0 ? (s[taken - 1] as Item<T>).seq : from;
  };
  return { items, next: { a: after(a, i, start.a), b: after(b, j, start.b) } };
}
