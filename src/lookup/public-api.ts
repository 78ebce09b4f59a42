// src/lookup, the auditor's look-ups: a client of the public API beside src/client. It fetches
// (web-standard fetch, bounded by src/net) and hands what it fetched to the offline verifier
// (src/verify, through its entries) and the formats; the pages, the CLI and the evidence route
// compose the two. Browser-safe: no `node:`, no HTTP server notion.
import { CodedError } from "../formats/coded-error.js";
import type { BearerTokens } from "../net/bearer-tokens.js";
import { BodyTooLarge, readBounded } from "../net/bounded-body.js";
import { fetchFailure } from "../net/fetch-error.js";
import { fetchWithin, timeLimit } from "../net/time-limit.js";
import { keysFromKeySet, type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../verify/index.js";

/** A record as the public routes return it. */
export type PublicRecord = Record<string, unknown>;

/** A failed look-up: the verdict names it rather than hiding it; `status` when the service answered one. */
export class LookupError extends CodedError<"LOOKUP_FAILED"> {
  readonly code = "LOOKUP_FAILED";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Lists stop here: an auditor's look-up is small, and a runaway listing must not hang the page. */
export const MAX_LIST_PAGES = 50;

/** How a look-up reaches the service: a fetch taking the request's headers and signal. */
export type LookupFetch = (
  url: string,
  init?: { headers?: Record<string, string>; signal?: AbortSignal },
) => Promise<Response>;

/** What a caller may set on the look-up client; every part is optional. */
export interface LookupOptions {
  /** How requests are made (the evidence route's answers in-process); the global fetch otherwise. */
  fetch?: LookupFetch;
  /**
   * The keys receipts are checked with, when the caller pinned some: from the fetched set (the
   * service's claim) to the pinned one. Unset: the fetched keys as they are.
   */
  pin?: (fetched: Map<string, PublicKey>) => Map<string, PublicKey>;
  /** How fetched keys are made: portable, unless a Node program passes node:crypto's. */
  makeKey?: PublicKeyFactory;
  /**
   * The caller's bearer token: fixed, or a source of them (client credentials, `TokenSource`),
   * which is asked once more for a fresh one when the service refuses the first (401).
   */
  tokens?: string | BearerTokens;
  /** The largest answer read, in bytes (another party's answer never holds more of our memory). */
  maxBytes?: number;
  /** How long one answer may take, in milliseconds. */
  timeoutMs?: number;
  /** Ends every look-up of this client when it aborts (an overall deadline, a page left). */
  signal?: AbortSignal;
}

// Lookups read records, receipts, keys and proofs: far below this unless a caller says otherwise.
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The one look-up client of the CLI, the pages and the evidence route: GETs on the service's
 * routes, with the caller's token when it has one (public routes need none), bounded in size and
 * time, every failure a LookupError with the status the service answered (429 included, so a
 * caller branches on the status, never on a message).
 */
export class PublicApi {
  private keySet: Promise<Map<string, PublicKey>> | undefined;
  private readonly fetcher: LookupFetch;
  private readonly pin: LookupOptions["pin"];
  private readonly makeKey: PublicKeyFactory;
  private readonly tokens: LookupOptions["tokens"];
  private readonly maxBytes: number;
  private readonly timeoutMs: number | undefined;
  private readonly signal: AbortSignal | undefined;

  /**
   * `options` as an object, or (the older form) the fetch alone followed by `pin` and `makeKey`.
   */
  constructor(
    readonly base: string,
    options: LookupOptions | ((url: string) => Promise<Response>) = {},
    pin?: LookupOptions["pin"],
    makeKey?: PublicKeyFactory,
  ) {
    const o: LookupOptions =
      typeof options === "function"
        ? { fetch: options, ...(pin ? { pin } : {}), ...(makeKey ? { makeKey } : {}) }
        : options;
    this.base = base.replace(/\/$/, "");
    // Bound late so the browser's fetch is never called with the wrong `this`.
    this.fetcher = o.fetch ?? ((url, init) => fetch(url, init));
    this.pin = o.pin;
    this.makeKey = o.makeKey ?? publicKeyFromJwk;
    this.tokens = o.tokens;
    this.maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
    this.timeoutMs = o.timeoutMs;
    this.signal = o.signal;
  }

  /** True when receipts are checked with keys the caller pinned, not the ones the service serves. */
  get pinned(): boolean {
    return this.pin !== undefined;
  }

  /** The service's keys as fetched (what it says today), for fingerprints. */
  fetchedKeys(): Promise<Map<string, PublicKey>> {
    this.fetched ??= this.bytes("/.well-known/scitt-keys").then((bytes) =>
      keysFromKeySet(bytes, this.makeKey),
    );
    return this.fetched;
  }
  private fetched: Promise<Map<string, PublicKey>> | undefined;

  private async token(): Promise<string | undefined> {
    if (this.tokens === undefined || typeof this.tokens === "string") return this.tokens;
    try {
      return await this.tokens.get();
    } catch (err) {
      throw new LookupError(
        `the token request: ${(err as Error).message}`,
        (err as { status?: number }).status,
      );
    }
  }

  private async once(url: string, token: string | undefined, max: number) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const limit = this.timeoutMs === undefined ? undefined : timeLimit(this.timeoutMs, this.signal);
    const signal = limit?.signal ?? this.signal;
    try {
      const res = limit
        ? await fetchWithin(this.fetcher, url, { headers }, limit)
        : await this.fetcher(url, { headers, ...(signal ? { signal } : {}) });
      return { status: res.status, bytes: (await readBounded(res, max, `GET ${url}`, signal)) as Uint8Array };
    } catch (err) {
      throw new LookupError(err instanceof BodyTooLarge ? err.message : fetchFailure(url, err));
    } finally {
      limit?.clear();
    }
  }

  /** Raw GET: status and body bytes (at most `maxBytes`, this call's or the client's). */
  async get(path: string, opts: { maxBytes?: number } = {}): Promise<{ status: number; bytes: Uint8Array }> {
    const url = `${this.base}${path}`;
    const max = opts.maxBytes ?? this.maxBytes;
    const token = await this.token();
    const first = await this.once(url, token, max);
    if (first.status !== 401 || !token || typeof this.tokens !== "object") return first;
    // A token the service no longer takes (expired, revoked): one fresh one, then its answer stands.
    this.tokens.invalidate(token);
    return this.once(url, await this.token(), max);
  }

  /** GET of a body; LookupError unless 2xx, naming the status and the service's message. */
  async bytes(path: string, opts: { maxBytes?: number } = {}): Promise<Uint8Array> {
    const { status, bytes } = await this.get(path, opts);
    if (status < 200 || status >= 300) {
      const message = /"message"\s*:\s*"([^"]*)"/.exec(
        new TextDecoder().decode(bytes.subarray(0, 4096)),
      )?.[1];
      throw new LookupError(`GET ${path} answered ${status}${message ? `: ${message}` : ""}`, status);
    }
    return bytes;
  }

  /** GET of a JSON document; LookupError unless 2xx. */
  async json<T>(path: string): Promise<T> {
    const bytes = await this.bytes(path);
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as T;
    } catch {
      throw new LookupError(`GET ${path} did not answer JSON`);
    }
  }

  /** Every item of a listing, following next_page_token, in the order the service returns them. */
  async list(path: string, collection: string): Promise<PublicRecord[]> {
    const out: PublicRecord[] = [];
    let token = "";
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const sep = path.includes("?") ? "&" : "?";
      const url = token ? `${path}${sep}page_token=${encodeURIComponent(token)}` : path;
      const body = await this.json<Record<string, unknown>>(url);
      const items = body[collection];
      if (Array.isArray(items)) out.push(...(items as PublicRecord[]));
      token = typeof body.next_page_token === "string" ? body.next_page_token : "";
      if (!token) return out;
    }
    throw new LookupError(`${path} has more than ${MAX_LIST_PAGES} pages; narrow the look-up`);
  }

  /** The keys receipts are checked with: the pinned ones when the caller pinned any, else the fetched ones. */
  keys(): Promise<Map<string, PublicKey>> {
    this.keySet ??= this.fetchedKeys().then((fetched) => (this.pin ? this.pin(fetched) : fetched));
    return this.keySet;
  }
}
