import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";
import type { DeliveryBackend } from "./job.js";

export type FetchFn = typeof fetch;

interface Cached {
  token: string;
  /** When to fetch a new one: `marginMs` before expiry, or half-way for tokens shorter-lived than that. */
  refreshAt: number;
}

/** Token endpoint of a backend. */
export function tokenUrl(b: DeliveryBackend): string {
  return b.tokenUrl ?? `${b.url.replace(/\/+$/, "")}/archivist/iam/v1/appidp/token`;
}

/**
 * Client-credentials tokens for one backend, cached until `marginMs` before they expire (half
 * their lifetime when that is shorter) and fetched once for all concurrent callers.
 */
export class TokenSource {
  private cached: Cached | undefined;
  private inflight: Promise<Cached> | undefined;

  constructor(
    private readonly backend: DeliveryBackend,
    private readonly fetchFn: FetchFn = fetch,
    private readonly marginMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid bearer token. */
  async get(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.cached.refreshAt > this.now()) return this.cached.token;
    this.inflight ??= this.fetchToken(signal).finally(() => {
      this.inflight = undefined;
    });
    this.cached = await this.inflight;
    return this.cached.token;
  }

  /** Forgets `token` (after a 401), so the next `get` fetches a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(signal?: AbortSignal): Promise<Cached> {
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.backend.clientId,
      client_secret: this.backend.clientSecret,
    });
    let res: Response;
    try {
      res = await this.fetchFn(tokenUrl(this.backend), {
        method: "POST",
        body,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw new TransientDeliveryError(`token request failed: ${(err as Error).message}`);
    }
    if (res.status === 429 || res.status >= 500)
      throw new TransientDeliveryError(`token endpoint answered ${res.status}`, res.status);
    if (!res.ok)
      throw new PermanentDeliveryError(`token endpoint refused the credentials (${res.status})`, res.status);
    const json = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (typeof json.access_token !== "string" || json.access_token === "")
      throw new TransientDeliveryError("token endpoint answered without access_token");
    const ttlMs = (typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in : 300) * 1000;
    return { token: json.access_token, refreshAt: this.now() + Math.max(ttlMs - this.marginMs, ttlMs / 2) };
  }
}
