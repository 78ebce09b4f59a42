import { ApiRefusedError } from "../client/errors.js";
import { requestToken } from "../client/token-source.js";
import { LookupError, PublicApi, type PublicRecord } from "../lookup/public-api.js";
import { vconUuidOf } from "../lookup/vcon.js";
import { type BundleReport, parseBundle, type TrustRoots, verifyBundle } from "../verify/index.js";
import { SignatureMemo } from "./signature-memo.js";

/**
 * The signed-in page's session. It lives in this page's memory only, in a module variable no
 * other script can name: not sessionStorage, which any same-origin document could read. A reload
 * asks to sign in again.
 */
export interface Session {
  token: string;
  clientId: string;
  /** The application's display name, as the token names it (the client id when it names none). */
  name: string;
  /** The tenancy the token acts in (its uuid): its log is the one the log panel shows. */
  tenant: string;
  expiresAt: number;
}

/**
 * The claims the console shows of its own token: the application's display name and its
 * tenancy. Read, not verified: the token came from this service's token endpoint just now, and
 * the service checks it on every request; nothing is decided from these.
 */
export function tokenClaims(token: string): { name: string; tenant: string } {
  try {
    const part = token.split(".")[1] ?? "";
    const json = atob(
      part
        .replace(/-/g, "+")
        .replace(/_/g, "/")
        .padEnd(Math.ceil(part.length / 4) * 4, "="),
    );
    const c = JSON.parse(json) as { name?: unknown; jit_tenant_id?: unknown };
    return {
      name: typeof c.name === "string" ? c.name : "",
      tenant: typeof c.jit_tenant_id === "string" ? c.jit_tenant_id.replace(/^tenant\//, "") : "",
    };
  } catch {
    return { name: "", tenant: "" };
  }
}

/** Client credentials → a token (the service's OIDC token endpoint), with the project's one token request. */
export async function signIn(origin: string, clientId: string, clientSecret: string): Promise<Session> {
  try {
    const t = await requestToken({ url: origin, clientId, clientSecret });
    const claims = tokenClaims(t.token);
    return {
      token: t.token,
      clientId,
      name: claims.name || clientId,
      tenant: claims.tenant,
      expiresAt: Date.now() + t.expiresInS * 1000 - 30_000,
    };
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
  new PublicApi(origin, {
    fetch: (url) => fetch(url, { headers: { authorization: `Bearer ${s.token}` } }),
    makeKey: new SignatureMemo().makeKey,
  });

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

/** The caller's evidence bundle of a trail, and its offline check by the caller's roots (the same code as /verify). */
export async function exportBundle(
  api: PublicApi,
  target: Target,
  trust: TrustRoots,
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
  const bundle = parseBundle(text);
  const memo = new SignatureMemo();
  const now = new Date();
  const report = await memo.judge(() => verifyBundle(bundle, trust, now, memo.makeKey));
  return { text, name: `evidence-${target.kind}-${target.uuid}.json`, report };
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

/** The orders of the asset table (`GET /archivist/v2/assets/-/summaries`). */
export type AssetOrder = "LAST_EVENT" | "NAME" | "CREATED";

/** An asset as the table shows it: the record with its readable events' count and newest time. */
export type AssetSummary = PublicRecord & { event_count: number; last_event_at: string };

/** One page of the asset table, with the total when the service gives it. */
export interface AssetPage {
  assets: AssetSummary[];
  next: string;
  total: number | undefined;
}

/** A page of the caller's assets: from a page token, or a first page of an order and a text filter. */
export async function assetPage(
  origin: string,
  s: Session,
  q: { order: AssetOrder; text: string; pageSize: number; token?: string | undefined },
): Promise<AssetPage> {
  const params = new URLSearchParams({ page_size: String(q.pageSize) });
  if (q.token) params.set("page_token", q.token);
  else {
    params.set("order_by", q.order);
    if (q.text.trim()) params.set("q", q.text.trim());
  }
  const url = `${origin}/archivist/v2/assets/-/summaries?${params}`;
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${s.token}`, "x-request-total-count": "true" },
  });
  const body = (await res.json().catch(() => ({}))) as {
    assets?: AssetSummary[];
    next_page_token?: string;
    message?: string;
  };
  if (!res.ok)
    throw new LookupError(
      `the asset list answered ${res.status}${body.message ? `: ${body.message}` : ""}`,
      res.status,
    );
  const total = Number(res.headers.get("x-total-count") ?? Number.NaN);
  return {
    assets: body.assets ?? [],
    next: body.next_page_token ?? "",
    total: Number.isFinite(total) ? total : undefined,
  };
}
