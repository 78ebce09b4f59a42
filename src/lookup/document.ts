import { kindOf } from "../formats/record/api-record.js";
import type { PublicApi, PublicRecord } from "./public-api.js";
import { checkReceipt, type ReceiptCheck } from "./receipts.js";

/** One published version of a document-profile asset that carries the hash. */
interface DocumentMatch {
  asset: string;
  title: string;
  version: string;
  /** The version's own status: Withdrawn when a withdrawal followed it before any newer version. */
  status: "Published" | "Withdrawn";
  /** True when it is still the asset's latest version. */
  current: boolean;
  published_at: string;
  withdrawn_at?: string;
  superseded_by?: string;
  event: string;
  confirmation_status: string;
  principal_declared: unknown;
  principal_accepted: unknown;
  receipt: ReceiptCheck;
  withdrawal?: { event: string; receipt: ReceiptCheck };
}

/** What the service's public records say about a document hash. */
export interface DocumentReport {
  kind: "document";
  sha256: string;
  ok: boolean;
  verdict: string;
  matches: DocumentMatch[];
}

const attrs = (r: PublicRecord, k: "asset_attributes" | "event_attributes" | "attributes") =>
  (r[k] ?? {}) as Record<string, unknown>;

/** The version's fate: the first later event that changes the document status or hash decides it. */
function fate(events: PublicRecord[], from: number, hash: string) {
  for (const e of events.slice(from + 1)) {
    const a = attrs(e, "asset_attributes");
    if (typeof a.document_hash_value === "string" && a.document_hash_value !== hash)
      return { superseded_by: String(a.document_version ?? "?") };
    if (a.document_status === "Withdrawn") return { withdrawn: e };
  }
  return {};
}

async function matchesOfAsset(api: PublicApi, uuid: string, hash: string): Promise<DocumentMatch[]> {
  const asset = await api.json<PublicRecord>(`/archivist/v2/publicassets/${uuid}`);
  if (attrs(asset, "attributes").arc_profile !== "Document") return [];
  // The listing is newest first; a version's fate is read forwards in time. Only the asset's own
  // events count: an asset event's leaf signs its asset_attributes, while the service may list
  // anything, such as another asset's event or an asset-free one given asset_attributes no leaf signs.
  const own = (e: PublicRecord) => {
    const id = String(e.identity ?? "");
    return (
      kindOf(e) === "asset-event" &&
      (id.startsWith(`assets/${uuid}/events/`) || id.startsWith(`publicassets/${uuid}/events/`))
    );
  };
  const events = (await api.list(`/archivist/v2/publicassets/${uuid}/events`, "events"))
    .reverse()
    .filter(own);
  const out: DocumentMatch[] = [];
  for (const [i, e] of events.entries()) {
    const a = attrs(e, "asset_attributes");
    if (a.document_hash_value !== hash) continue;
    const f = fate(events, i, hash);
    const m: DocumentMatch = {
      asset: String(asset.identity),
      title: String(attrs(asset, "attributes").arc_display_name ?? ""),
      version: String(a.document_version ?? ""),
      status: f.withdrawn ? "Withdrawn" : "Published",
      current: !f.withdrawn && !f.superseded_by,
      published_at: String(e.timestamp_accepted ?? ""),
      event: String(e.identity),
      confirmation_status: String(e.confirmation_status ?? ""),
      principal_declared: e.principal_declared,
      principal_accepted: e.principal_accepted,
      receipt: await checkReceipt(api, e),
    };
    if (f.superseded_by) m.superseded_by = f.superseded_by;
    if (f.withdrawn) {
      m.withdrawn_at = String(f.withdrawn.timestamp_accepted ?? "");
      m.withdrawal = { event: String(f.withdrawn.identity), receipt: await checkReceipt(api, f.withdrawn) };
    }
    out.push(m);
  }
  return out;
}

/** "version 2", or words for a version whose record names no number (document_version unset). */
export const versionLabel = (version: string): string =>
  version ? `version ${version}` : "an unnumbered version";

function verdictOf(matches: DocumentMatch[]): { ok: boolean; verdict: string } {
  if (matches.length === 0)
    return { ok: false, verdict: "NOT FOUND: no public document version carries this hash" };
  const unproven = matches.filter((m) => !m.receipt.ok || (m.withdrawal && !m.withdrawal.receipt.ok));
  if (unproven.length)
    return { ok: false, verdict: `NOT VERIFIED: ${unproven.length} record(s) without a valid receipt` };
  const withdrawn = matches.filter((m) => m.status === "Withdrawn");
  if (withdrawn.length)
    return {
      ok: false,
      verdict: `WITHDRAWN: ${withdrawn.map((m) => versionLabel(m.version)).join(", ")} was withdrawn`,
    };
  return {
    ok: true,
    verdict: `VERIFIED: published as ${matches.map((m) => versionLabel(m.version)).join(", ")}`,
  };
}

/** Finds the public document-profile versions carrying `sha256` and verifies their receipts. */
export async function verifyDocumentHash(api: PublicApi, sha256: string): Promise<DocumentReport> {
  const hash = sha256.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error("a document hash is 64 hex digits (SHA-256)");
  const events = await api.list(
    `/archivist/v2/publicassets/-/events?asset_attributes.document_hash_value=${hash}`,
    "events",
  );
  const assets = [...new Set(events.map((e) => String(e.identity).split("/")[1] ?? ""))].filter(Boolean);
  const matches: DocumentMatch[] = [];
  for (const uuid of assets) matches.push(...(await matchesOfAsset(api, uuid, hash)));
  return { kind: "document", sha256: hash, matches, ...verdictOf(matches) };
}
