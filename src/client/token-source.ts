import type { BearerTokens } from "../net/bearer-tokens.js";
import { readBoundedText } from "../net/bounded-body.js";
import { fetchFailure } from "../net/fetch-error.js";
import { fetchWithin, timeLimit } from "../net/time-limit.js";
import { API_ERRORS, type ApiErrors } from "./errors.js";
import type { FetchFn } from "./http.js";

/** An application's client credentials (OIDC client-credentials grant) at one service. */
export interface ClientCredentials {
  /** Base URL of the service, e.g. https://archivist.example. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Token endpoint when not `{url}/archivist/iam/v1/appidp/token`. */
  tokenUrl?: string;
}

export type { BearerTokens } from "../net/bearer-tokens.js";

export interface TokenSourceOptions {
  fetch?: FetchFn;
  /** How long before expiry a token is replaced. */
  marginMs?: number;
  now?: () => number;
  errors?: ApiErrors;
}

interface Cached {
  token: string;
  /** When to fetch a new one: `marginMs` before expiry, or half-way for tokens shorter-lived than that. */
  refreshAt: number;
}

/** The token endpoint of a service. */
export function tokenUrl(c: Pick<ClientCredentials, "url" | "tokenUrl">): string {
  return c.tokenUrl ?? `${c.url.replace(/\/+$/, "")}/archivist/iam/v1/appidp/token`;
}

/**
 * Client-credentials tokens for one application, cached until `marginMs` before they expire
 * (half their lifetime when that is shorter) and fetched once for all concurrent callers.
 */
export class TokenSource implements BearerTokens {
  private cached: Cached | undefined;
  private inflight: Promise<Cached> | undefined;
  private readonly fetchFn: FetchFn;
  private readonly marginMs: number;
  private readonly now: () => number;
  private readonly errors: ApiErrors;

  constructor(
    private readonly credentials: ClientCredentials,
    o: TokenSourceOptions = {},
  ) {
    this.fetchFn = o.fetch ?? fetch;
    this.marginMs = o.marginMs ?? 60_000;
    this.now = o.now ?? Date.now;
    this.errors = o.errors ?? API_ERRORS;
  }

  /** A valid bearer token. */
  async get(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.cached.refreshAt > this.now()) return this.cached.token;
    this.inflight ??= this.fetchToken(signal).finally(() => {
      this.inflight = undefined;
    });
    this.cached = await this.inflight;
    return this.cached.token;
  }

  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(signal?: AbortSignal): Promise<Cached> {
    const { token, expiresInS } = await requestToken(this.credentials, {
      fetch: this.fetchFn,
      errors: this.errors,
      signal,
    });
    const ttlMs = expiresInS * 1000;
    return { token, refreshAt: this.now() + Math.max(ttlMs - this.marginMs, ttlMs / 2) };
  }
}

/** A token endpoint's answer is a few hundred bytes: a larger one is not read. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
const TOKEN_TIMEOUT_MS = 30_000;

/**
 * The one client-credentials token request of this project (the client library, the CLI's
 * export and the console's sign-in all use it). Refusals (400/401) carry the endpoint's
 * `error_description`; 429, 5xx and network failures are "unavailable" (they may pass).
 */
export async function requestToken(
  credentials: ClientCredentials,
  o: { fetch?: FetchFn; errors?: ApiErrors; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ token: string; expiresInS: number }> {
  const errors = o.errors ?? API_ERRORS;
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  // One bound for the answer's headers and body: a trickling endpoint holds nobody for ever.
  const limit = timeLimit(o.timeoutMs ?? TOKEN_TIMEOUT_MS, o.signal);
  try {
    let res: Response;
    try {
      res = await fetchWithin(
        o.fetch ?? fetch,
        tokenUrl(credentials),
        // The secret goes to the endpoint configured, never on to where a 3xx points.
        { method: "POST", body, redirect: "manual" as const },
        limit,
      );
    } catch (err) {
      // Named as every other request the CLI and the pages make is ("connection refused (is the
      // service running …)"), not undici's bare "fetch failed".
      throw errors.unavailable(fetchFailure(tokenUrl(credentials), err));
    }
    // A browser answers a redirect not followed as an opaque one, of status 0.
    const redirected = res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400);
    if (res.status === 429 || res.status >= 500 || redirected) {
      await res.body?.cancel().catch(() => undefined);
      throw errors.unavailable(
        `token endpoint answered ${res.status}${redirected ? " (redirects are not followed)" : ""}`,
        res.status,
      );
    }
    let text: string;
    try {
      text = await readBoundedText(res, MAX_TOKEN_ANSWER_BYTES, "the token endpoint's answer", limit.signal);
    } catch (err) {
      throw errors.unavailable(`token endpoint's answer could not be read: ${(err as Error).message}`);
    }
    return answerOf(res, text, errors);
  } finally {
    limit.clear();
  }
}

/** The token endpoint's answer, read: the token and its lifetime, or why there is none. */
function answerOf(res: Response, text: string, errors: ApiErrors): { token: string; expiresInS: number } {
  const json = (parseJson(text) ?? {}) as {
    access_token?: unknown;
    expires_in?: unknown;
    error_description?: unknown;
    message?: unknown;
  };
  if (!res.ok) {
    const why = typeof json.error_description === "string" ? json.error_description : json.message;
    throw errors.refused(
      `token endpoint refused the credentials (${res.status})${typeof why === "string" && why ? `: ${why}` : ""}`,
      res.status,
    );
  }
  if (typeof json.access_token !== "string" || json.access_token === "")
    throw errors.unavailable("token endpoint answered without access_token");
  return {
    token: json.access_token,
    expiresInS: typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in : 300,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
