import { request } from "undici";

/** A JSON answer of the service. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** One request from the bench process itself (set-up and polling, never the measured load). */
export async function call(
  origin: string,
  method: "GET" | "POST",
  path: string,
  opts: {
    token?: string;
    json?: unknown;
    form?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await request(`${origin}${path}`, { method, headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

/** Fetches a client-credentials token, as any API client does. */
export async function fetchToken(origin: string, clientId: string, clientSecret: string): Promise<string> {
  const a = await call(origin, "POST", "/archivist/iam/v1/appidp/token", {
    form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
  });
  const token = (a.body as { access_token?: unknown } | undefined)?.access_token;
  if (a.status !== 200 || typeof token !== "string")
    throw new Error(`token: ${a.status} ${a.text.slice(0, 200)}`);
  return token;
}

/** Reads a string field of a JSON object answer. */
export function field(a: Answer, name: string): string | undefined {
  const v = (a.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === "string" ? v : undefined;
}
