import { LookupError, type PublicApi, type PublicRecord } from "../lookup/public-api.js";
import type { ReceiptCheck } from "../lookup/receipts.js";
import type { FoundStatement, Target } from "./console-data.js";
import { type RecordFacts, recordFacts } from "./record-facts.js";
import type { Prefetched } from "./worker-protocol.js";

/** One record of a trail: what it says, its receipt's check, and the statement it also stands as. */
export interface TrailStep {
  record: PublicRecord;
  facts: RecordFacts;
  receipt: ReceiptCheck;
  /** True until the worker has checked this record's receipts (`receipt` then says nothing yet). */
  pending: boolean;
  /** The signed statement found for this record by the trail's subject, when there is one. */
  statement?: FoundStatement | undefined;
}

interface PolicyStatus {
  identity: string;
  name: string;
  compliant: boolean;
  reason: string;
}

/** What a trail is of: a vCon, an asset, or one asset-free record. */
type TrailTarget = Target | { kind: "record"; uuid: string };

export interface Trail {
  target: TrailTarget;
  title: string;
  assets: PublicRecord[];
  /** Oldest first, by acceptance (then log position). */
  steps: TrailStep[];
  /** Per asset of the trail, its compliance against each policy that applies to it. */
  compliance: Array<{ asset: string; compliant: boolean; policies: PolicyStatus[] }>;
  /**
   * A vCon's trail: per asset, the events of it the caller may read (what the asset table
   * counts, its creation included) and how many of them this trail shows (those naming the vCon).
   */
  assetCounts: Array<{ identity: string; name: string; total: number; inTrail: number }>;
}

/** What a record's receipt says before the worker has checked it. */
const NOT_YET: ReceiptCheck = { ok: false, code: "cannot-evaluate", reason: "not checked yet" };

/** What a trail counts, by kind: "2 asset events, 1 asset-free event, 1 registered statement". */
export function countsByKind(steps: readonly TrailStep[]): string {
  const kinds = new Map<string, number>();
  for (const x of steps) kinds.set(x.facts.kind, (kinds.get(x.facts.kind) ?? 0) + 1);
  return [...kinds].map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`).join(", ");
}

async function policyNames(api: PublicApi): Promise<Map<string, string>> {
  try {
    const list = await api.list("/archivist/v1/compliance_policies", "compliance_policies");
    return new Map(list.map((p) => [String(p.identity), String(p.display_name || p.identity)]));
  } catch {
    return new Map();
  }
}

/** A trail's records as the caller may list them, and their assets. */
interface Gathered {
  assets: PublicRecord[];
  records: PublicRecord[];
}

/** Records a listing page holds: the service's largest (a 1,000-record trail in two requests). */
const PAGE = "page_size=500";

/**
 * The trail's records, listed as the caller may read them: only the records, so the first page is
 * on screen before any receipt is read (the worker reads those, in batches, while the page is in
 * use). It was the evidence bundle, which the service gathers and checks whole before answering:
 * 8 s for 1,000 records before the first card.
 */
async function gather(api: PublicApi, target: Target): Promise<Gathered> {
  if (target.kind === "asset") {
    const res = await api.get(`/archivist/v2/assets/${target.uuid}`);
    if (res.status === 404 || res.status === 403) return { assets: [], records: [] };
    const asset = await api.json<PublicRecord>(`/archivist/v2/assets/${target.uuid}`);
    const records = await api.list(`/archivist/v2/assets/${target.uuid}/events?${PAGE}`, "events");
    return { assets: [asset], records };
  }
  const subject = encodeURIComponent(`vcon://${target.uuid}`);
  const records = await api.list(
    `/archivist/v2/assets/-/events?event_attributes.subject=${subject}&${PAGE}`,
    "events",
  );
  const ids = [
    ...new Set(records.map((e) => /^assets\/([0-9a-f-]{36})\//.exec(String(e.identity))?.[1] ?? "")),
  ].filter(Boolean);
  const assets = await Promise.all(ids.map((id) => api.json<PublicRecord>(`/archivist/v2/assets/${id}`)));
  return { assets, records };
}

/**
 * Everything the caller may read about one vCon: the events of its assets, and, through the
 * statement search by its subject, its asset-free events and the statements registered for it
 * (a tenancy's administrators read those; others find none).
 */
async function vconRecords(
  api: PublicApi,
  uuid: string,
): Promise<Gathered & { statements: FoundStatement[] }> {
  const subject = encodeURIComponent(`vcon://${uuid}`);
  const [found, statements] = await Promise.all([
    gather(api, { kind: "vcon", uuid }),
    api.list(`/archivist/v1/statements?subject=${subject}`, "statements") as unknown as Promise<
      FoundStatement[]
    >,
  ]);
  const have = new Set(found.records.map((r) => String(r.identity)));
  const free = statements.filter((st) => st.identity.startsWith("events/") && !have.has(st.identity));
  const more = await Promise.all(
    [...new Set(free.map((st) => st.identity))].map((id) => api.json<PublicRecord>(`/archivist/v1/${id}`)),
  );
  return { ...found, records: [...found.records, ...more], statements };
}

const byTime = (a: TrailStep, b: TrailStep) =>
  (Date.parse(a.facts.accepted) || 0) - (Date.parse(b.facts.accepted) || 0) ||
  a.facts.logIndex - b.facts.logIndex;

const nameOf = (a: PublicRecord | undefined, fallback: string) =>
  String((a?.attributes as Record<string, unknown> | undefined)?.arc_display_name || fallback);

/**
 * Finds a trail, its records in order with their receipts not yet checked (the worker checks
 * them): for a bare uuid the vCon it records, else the asset of that id. Its compliance and
 * counts come after (`trailContext`), so the records are on screen first.
 */
export async function loadTrail(api: PublicApi, wanted: Target | "either", uuid: string): Promise<Trail> {
  let target: Target = wanted === "either" ? { kind: "vcon", uuid } : wanted;
  let found: Gathered = { assets: [], records: [] };
  let statements: FoundStatement[] = [];
  if (target.kind === "vcon") {
    ({ statements, ...found } = await vconRecords(api, uuid));
    if (found.records.length === 0 && wanted === "either") target = { kind: "asset", uuid };
    else if (found.records.length === 0)
      throw new LookupError(`no records of vcon://${uuid} that you may read`);
  }
  if (target.kind === "asset") {
    found = await gather(api, target);
    if (!found.assets.length) throw new LookupError(`no vCon or asset ${uuid} that you may read`);
  }
  const statementOf = new Map(statements.map((st) => [st.identity, st]));
  const steps: TrailStep[] = found.records.map((record) => ({
    record,
    facts: recordFacts(record),
    receipt: NOT_YET,
    pending: true,
    statement: statementOf.get(String(record.identity)),
  }));
  steps.sort(byTime);
  const title = target.kind === "vcon" ? `vcon://${uuid}` : nameOf(found.assets[0], `assets/${uuid}`);
  return {
    target,
    title,
    assets: found.assets,
    steps,
    compliance: [],
    assetCounts: [],
  };
}

/**
 * A trail's compliance (per asset, against each policy that applies) and, for a vCon, how its
 * records meet each asset's count of events; read while the worker checks the receipts.
 */
export async function trailContext(
  api: PublicApi,
  t: Trail,
): Promise<Pick<Trail, "compliance" | "assetCounts">> {
  const names = await policyNames(api);
  const compliance = await Promise.all(
    t.assets.map(async (a) => {
      const id = String(a.identity).split("/")[1];
      const c = await api.json<{ compliant: boolean; compliance: Array<Record<string, unknown>> }>(
        `/archivist/v1/compliance/assets/${id}`,
      );
      return {
        asset: String(a.identity),
        compliant: c.compliant,
        policies: c.compliance.map((p) => ({
          identity: String(p.compliance_policy_identity),
          name: names.get(String(p.compliance_policy_identity)) ?? String(p.compliance_policy_identity),
          compliant: p.compliant === true,
          reason: String(p.reason ?? ""),
        })),
      };
    }),
  );
  const assetCounts =
    t.target.kind !== "vcon"
      ? []
      : await Promise.all(
          t.assets.map(async (a) => {
            const identity = String(a.identity);
            const total = (await api.list(`/archivist/v2/${identity}/events`, "events")).length;
            const inTrail = t.steps.filter((x) => x.facts.identity.startsWith(`${identity}/`)).length;
            return { identity, name: nameOf(a, identity), total, inTrail };
          }),
        );
  return { compliance, assetCounts };
}

/** The trail's records again, each receipt not yet checked: to be judged under other roots. */
export const unjudged = (t: Trail): Trail => ({
  ...t,
  steps: t.steps.map((x) => ({ ...x, receipt: NOT_YET, pending: true })),
});

/**
 * The receipts a trail's checks read, by the receipt route's name of each record: judged again
 * under other roots without reading them again. Only bytes: nothing of the old verdicts.
 */
export function heldReceipts(t: Trail): Prefetched {
  const held: Prefetched = {};
  for (const x of t.steps)
    if (x.receipt.ok)
      held[x.facts.identity.replace(/^publicassets\//, "assets/")] = { ...x.receipt.receipts };
  return held;
}

/** One asset-free event (a registered statement among them) as a trail of its own. */
export async function loadFreeEvent(api: PublicApi, identity: string): Promise<Trail> {
  const res = await api.get(`/archivist/v1/${identity}`);
  if (res.status === 404 || res.status === 403)
    throw new LookupError(`no record ${identity} that you may read`);
  const record = await api.json<PublicRecord>(`/archivist/v1/${identity}`);
  const facts = recordFacts(record);
  const uuid = identity.slice("events/".length);
  return {
    target: { kind: "record", uuid },
    title: identity,
    assets: [],
    steps: [{ record, facts, receipt: NOT_YET, pending: true }],
    compliance: [],
    assetCounts: [],
  };
}
