import { LookupError, type PublicApi, type PublicRecord } from "../lookup/public-api.js";
import { checkReceipt, type ReceiptCheck } from "../lookup/receipts.js";
import type { TrustRoots } from "../verify/index.js";
import type { FoundStatement, Target } from "./console-data.js";
import { type RecordFacts, recordFacts } from "./record-facts.js";

/** One record of a trail: what it says, its receipt's check, and the statement it also stands as. */
export interface TrailStep {
  record: PublicRecord;
  facts: RecordFacts;
  receipt: ReceiptCheck;
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

/**
 * Everything the caller may read about one vCon: the events of its assets, and, through the
 * statement search by its subject, its asset-free events and the statements registered for it
 * (a tenancy's administrators read those; others find none).
 */
async function vconRecords(
  api: PublicApi,
  uuid: string,
): Promise<{ records: PublicRecord[]; statements: FoundStatement[] }> {
  const subject = encodeURIComponent(`vcon://${uuid}`);
  const records = await api.list(
    `/archivist/v2/assets/-/events?event_attributes.subject=${subject}`,
    "events",
  );
  const statements = (await api.list(
    `/archivist/v1/statements?subject=${subject}`,
    "statements",
  )) as unknown as FoundStatement[];
  const have = new Set(records.map((r) => String(r.identity)));
  for (const st of statements)
    if (st.identity.startsWith("events/") && !have.has(st.identity)) {
      records.push(await api.json<PublicRecord>(`/archivist/v1/${st.identity}`));
      have.add(st.identity);
    }
  return { records, statements };
}

const byTime = (a: TrailStep, b: TrailStep) =>
  (Date.parse(a.facts.accepted) || 0) - (Date.parse(b.facts.accepted) || 0) ||
  a.facts.logIndex - b.facts.logIndex;

/** Finds a trail: for a bare uuid the vCon it records, else the asset of that id. */
export async function loadTrail(
  api: PublicApi,
  wanted: Target | "either",
  uuid: string,
  trust: TrustRoots,
): Promise<Trail> {
  let target: Target = wanted === "either" ? { kind: "vcon", uuid } : wanted;
  let records: PublicRecord[] = [];
  let statements: FoundStatement[] = [];
  let assets: PublicRecord[] = [];
  if (target.kind === "vcon") {
    ({ records, statements } = await vconRecords(api, uuid));
    if (records.length === 0 && wanted === "either") target = { kind: "asset", uuid };
    else if (records.length === 0) throw new LookupError(`no records of vcon://${uuid} that you may read`);
  }
  if (target.kind === "asset") {
    const res = await api.get(`/archivist/v2/assets/${uuid}`);
    if (res.status === 404 || res.status === 403)
      throw new LookupError(`no vCon or asset ${uuid} that you may read`);
    assets = [await api.json<PublicRecord>(`/archivist/v2/assets/${uuid}`)];
    records = await api.list(`/archivist/v2/assets/${uuid}/events`, "events");
  } else {
    const ids = [
      ...new Set(records.map((e) => /^assets\/([0-9a-f-]{36})\//.exec(String(e.identity))?.[1] ?? "")),
    ].filter(Boolean);
    for (const id of ids) assets.push(await api.json<PublicRecord>(`/archivist/v2/assets/${id}`));
  }
  const statementOf = new Map(statements.map((st) => [st.identity, st]));
  const steps: TrailStep[] = [];
  for (const record of records)
    steps.push({
      record,
      facts: recordFacts(record),
      receipt: await checkReceipt(api, record, trust),
      statement: statementOf.get(String(record.identity)),
    });
  steps.sort(byTime);
  const names = await policyNames(api);
  const compliance = [];
  for (const a of assets) {
    const id = String(a.identity).split("/")[1];
    const c = await api.json<{ compliant: boolean; compliance: Array<Record<string, unknown>> }>(
      `/archivist/v1/compliance/assets/${id}`,
    );
    compliance.push({
      asset: String(a.identity),
      compliant: c.compliant,
      policies: c.compliance.map((p) => ({
        identity: String(p.compliance_policy_identity),
        name: names.get(String(p.compliance_policy_identity)) ?? String(p.compliance_policy_identity),
        compliant: p.compliant === true,
        reason: String(p.reason ?? ""),
      })),
    });
  }
  const assetCounts: Trail["assetCounts"] = [];
  if (target.kind === "vcon")
    for (const a of assets) {
      const identity = String(a.identity);
      const total = (await api.list(`/archivist/v2/${identity}/events`, "events")).length;
      const inTrail = steps.filter((x) => x.facts.identity.startsWith(`${identity}/`)).length;
      const name = String(
        (a.attributes as Record<string, unknown> | undefined)?.arc_display_name || identity,
      );
      assetCounts.push({ identity, name, total, inTrail });
    }
  const title =
    target.kind === "vcon"
      ? `vcon://${uuid}`
      : String(
          (assets[0]?.attributes as Record<string, unknown> | undefined)?.arc_display_name ||
            `assets/${uuid}`,
        );
  return { target, title, assets, steps, compliance, assetCounts };
}

/** One asset-free event (a registered statement among them) as a trail of its own. */
export async function loadFreeEvent(api: PublicApi, identity: string, trust: TrustRoots): Promise<Trail> {
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
    steps: [{ record, facts, receipt: await checkReceipt(api, record, trust) }],
    compliance: [],
    assetCounts: [],
  };
}
