import { ApiRefusedError } from "../client/errors.js";
import { requestToken } from "../client/token-source.js";
import { type BundleReport, parseBundle, verifyBundle } from "../verify/index.js";
import { LookupError, PublicApi, type PublicRecord } from "./public-api.js";
import { checkReceipt, type ReceiptCheck } from "./receipts.js";
import { vconUuidOf } from "./vcon.js";

/**
 * The signed-in page's session. It lives in this page's memory only, in a module variable no
 * other script can name: not sessionStorage, which any same-origin document could read. A reload
 * asks to sign in again.
 */
export interface Session {
  token: string;
  clientId: string;
  expiresAt: number;
}

/** Client credentials → a token (the service's OIDC token endpoint), with the project's one token request. */
export async function signIn(origin: string, clientId: string, clientSecret: string): Promise<Session> {
  try {
    const t = await requestToken({ url: origin, clientId, clientSecret });
    return { token: t.token, clientId, expiresAt: Date.now() + t.expiresInS * 1000 - 30_000 };
  } catch (err) {
    if (err instanceof ApiRefusedError)
      throw new LookupError(
        `sign-in refused: ${err.message.replace(/^token endpoint refused the credentials \(\d+\): ?/, "") || "unknown client or wrong secret"}`,
      );
    throw new LookupError(`sign-in failed: ${(err as Error).message}`);
  }
}

/** The API as the signed-in caller reads it: every request carries the tab's token. */
export const callerApi = (origin: string, s: Session) =>
  new PublicApi(origin, (url) => fetch(url, { headers: { authorization: `Bearer ${s.token}` } }));

/** What the auditor asked for: a vCon (vcon://uuid), an asset (assets/uuid), or a bare uuid. */
export type Target = { kind: "vcon"; uuid: string } | { kind: "asset"; uuid: string };

export function parseTarget(text: string): Target | "either" | undefined {
  const t = text.trim();
  if (/^vcon:\/\//i.test(t)) {
    const uuid = vconUuidOf(t);
    return uuid ? { kind: "vcon", uuid } : undefined;
  }
  if (/^assets\//i.test(t)) {
    const uuid = vconUuidOf(t.replace(/^assets\//i, ""));
    return uuid ? { kind: "asset", uuid } : undefined;
  }
  return vconUuidOf(t) ? "either" : undefined;
}

interface TrailStep {
  record: PublicRecord;
  receipt: ReceiptCheck;
}

interface PolicyStatus {
  identity: string;
  name: string;
  compliant: boolean;
  reason: string;
}

export interface Trail {
  target: Target;
  title: string;
  assets: PublicRecord[];
  steps: TrailStep[];
  /** Per asset of the trail, its compliance against each policy that applies to it. */
  compliance: Array<{ asset: string; compliant: boolean; policies: PolicyStatus[] }>;
}

const order = (r: PublicRecord) =>
  Number(
    (r.merklelog_entry as { commit?: { index?: string } } | undefined)?.commit?.index ??
      Number.MAX_SAFE_INTEGER,
  );

async function policyNames(api: PublicApi): Promise<Map<string, string>> {
  try {
    const list = await api.list("/archivist/v1/compliance_policies", "compliance_policies");
    return new Map(list.map((p) => [String(p.identity), String(p.display_name || p.identity)]));
  } catch {
    return new Map();
  }
}

/** Finds a trail: for a bare uuid the vCon it records, else the asset of that id. */
export async function loadTrail(api: PublicApi, wanted: Target | "either", uuid: string): Promise<Trail> {
  let target: Target = wanted === "either" ? { kind: "vcon", uuid } : wanted;
  let events: PublicRecord[] = [];
  let assets: PublicRecord[] = [];
  if (target.kind === "vcon") {
    events = await api.list(
      `/archivist/v2/assets/-/events?event_attributes.subject=${encodeURIComponent(`vcon://${uuid}`)}`,
      "events",
    );
    if (events.length === 0 && wanted === "either") target = { kind: "asset", uuid };
    else if (events.length === 0) throw new LookupError(`no records of vcon://${uuid} that you may read`);
  }
  if (target.kind === "asset") {
    const res = await api.get(`/archivist/v2/assets/${uuid}`);
    if (res.status === 404 || res.status === 403)
      throw new LookupError(`no vCon or asset ${uuid} that you may read`);
    assets = [await api.json<PublicRecord>(`/archivist/v2/assets/${uuid}`)];
    events = await api.list(`/archivist/v2/assets/${uuid}/events`, "events");
  } else {
    const ids = [...new Set(events.map((e) => String(e.identity).split("/")[1] ?? ""))].filter(Boolean);
    for (const id of ids) assets.push(await api.json<PublicRecord>(`/archivist/v2/assets/${id}`));
  }
  events.sort((a, b) => order(a) - order(b));
  const steps: TrailStep[] = [];
  for (const record of events) steps.push({ record, receipt: await checkReceipt(api, record) });
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
  const title =
    target.kind === "vcon"
      ? `vcon://${uuid}`
      : String(
          (assets[0]?.attributes as Record<string, unknown> | undefined)?.arc_display_name ||
            `assets/${uuid}`,
        );
  return { target, title, assets, steps, compliance };
}

/** The caller's evidence bundle of a trail, and its offline check (the same code as /verify). */
export async function exportBundle(
  api: PublicApi,
  target: Target,
): Promise<{ text: string; name: string; report: BundleReport }> {
  const path = `/archivist/v1/evidence/${target.kind === "vcon" ? "vcons" : "assets"}/${target.uuid}`;
  const { status, bytes } = await api.get(path);
  const text = new TextDecoder().decode(bytes);
  if (status !== 200) {
    // A proxy's error page is not JSON: the status alone then.
    let message: string | undefined;
    try {
      message = (JSON.parse(text) as { message?: string }).message;
    } catch {
      message = undefined;
    }
    throw new LookupError(`the export answered ${status}${message ? `: ${message}` : ""}`);
  }
  return {
    text,
    name: `evidence-${target.kind}-${target.uuid}.json`,
    report: verifyBundle(parseBundle(text)),
  };
}

/** The most recent assets the caller may read, for picking one. */
export async function recentAssets(api: PublicApi): Promise<PublicRecord[]> {
  const body = await api.json<{ assets?: PublicRecord[] }>("/archivist/v2/assets?page_size=10");
  return body.assets ?? [];
}

/** A statement as `GET /archivist/v1/statements` finds it. */
export interface FoundStatement {
  identity: string;
  kind: string;
  entry_id?: string;
  subject: string;
  issuer: string;
  payload_hash: string;
  payload_hash_alg: string;
  event_type: string;
  timestamp_accepted: string;
  confirmation_status: string;
}

/** Which field a statement search looks in. */
export type StatementField = "subject" | "issuer" | "payload_hash";

/** Statements the caller may read whose subject, issuer or payload hash is `value` (one page, newest first). */
export async function findStatements(
  api: PublicApi,
  field: StatementField,
  value: string,
): Promise<FoundStatement[]> {
  const q = new URLSearchParams({ [field]: value.trim(), page_size: "50" });
  const body = await api.json<{ statements?: FoundStatement[] }>(`/archivist/v1/statements?${q}`);
  return body.statements ?? [];
}
