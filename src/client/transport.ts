import { exponentialDelay, sleep } from "./backoff.js";
import { API_ERRORS, type ApiErrors, ApiRefusedError, ApiUnavailableError } from "./errors.js";
import {
  type HeaderReader,
  type HttpAnswer,
  type HttpMethod,
  type HttpSend,
  keepAliveSender,
} from "./http.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, rateLimitWaitMs } from "./retry-policy.js";
import { leaseSignal } from "./signal-lease.js";
import type { BearerTokens } from "./token-source.js";

/** What a client tells its owner as it works (metrics, logs); every hook is optional. */
export interface TransportObserver {
  /** One answer (its status) or one failure to get any ("error"), per request sent. */
  answered?(route: string, status: string): void;
  /** A 429 is being waited out within the call. */
  rateLimited?(route: string, waitMs: number): void;
  /** A failure that may pass is being retried within the call. */
  retrying?(message: string, waitMs: number): void;
}

/** A request body: JSON, or bytes of a given content type (a COSE statement, a multipart form). */
export type RequestBody = { json: unknown } | { bytes: Uint8Array; contentType: string };

export interface CallOptions {
  /** Label of the operation for metrics (not the path: paths carry ids). */
  route: string;
  /** A list value repeats its key (a repeated key matches any of its values). */
  query?: Record<string, string | readonly string[]>;
  body?: RequestBody;
  headers?: Record<string, string>;
  /**
   * False for a write whose outcome a 5xx or a lost answer leaves unknown and which is not safe
   * to send twice: such a failure ends the call at once (the caller looks before trying again).
   * 401 and 429 are still retried (the service did not act on the request).
   */
  retryUnknown?: boolean;
  /** Statuses besides 2xx that are answers, not failures (202 and 3xx of SCRAPI, 409 of a receipt not yet sealed). */
  answers?: readonly number[];
  /** The largest answer this call reads (the client's `maxAnswerBytes` unless given). */
  maxAnswerBytes?: number;
}

/** An answer: its status, its headers, and its body read as asked. */
export interface Reply<T> {
  status: number;
  headers: HeaderReader;
  body: T;
}

export interface TransportOptions {
  /** Base URL of the service, e.g. https://archivist.example. */
  url: string;
  /** Bearer tokens; without them requests are sent without one (the public routes). */
  tokens?: BearerTokens;
  /** How to send (tests, custom transports); by default undici over a keep-alive agent. */
  send?: HttpSend;
  policy?: RetryPolicy;
  /** Ends every call of this client (e.g. a job's cancellation). */
  signal?: AbortSignal;
  /** Sent with every request (a user agent, a partner id). */
  headers?: Record<string, string>;
  errors?: ApiErrors;
  observer?: TransportObserver;
  /**
   * The largest answer a call reads, unless the call says otherwise: a larger one is a failure
   * that may pass (for a write, a lost answer). 8 MiB by default.
   */
  maxAnswerBytes?: number;
}

const MAX_RESET_MS = 3_600_000;
/** The service's own answers fit with room to spare: a page of 500 records, a receipt, a statement. */
const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** What of a refusal's body is read for its message (it keeps the first 500 characters). */
const ERROR_TEXT_BYTES = 64 * 1024;
const utf8 = new TextDecoder();

type Outcome<T> = { done: true; reply: Reply<T> } | { done: false; wait: number };
/** Makes the call's value of an answer's body; throws when the body is not what was asked for. */
type Read<T> = (body: Uint8Array) => T;
interface Tries {
  failures: number;
  waits: number;
  refreshed: boolean;
}

/**
 * Calls to one service: bearer tokens, one refetch on 401, waits on 429 and retries of 5xx and
 * network failures within the retry policy, then an `ApiRefusedError` (for good) or an
 * `ApiUnavailableError` (may pass) carrying the status and any wait the service asked for.
 */
export class Transport {
  private readonly send: HttpSend;
  private readonly policy: RetryPolicy;
  private readonly signal: AbortSignal;
  private readonly errors: ApiErrors;
  private readonly base: string;
  private readonly maxAnswerBytes: number;

  constructor(private readonly o: TransportOptions) {
    this.send = o.send ?? keepAliveSender();
    this.policy = o.policy ?? DEFAULT_RETRY_POLICY;
    // Never aborted: the per-request timeout still applies.
    this.signal = o.signal ?? new AbortController().signal;
    this.errors = o.errors ?? API_ERRORS;
    this.base = o.url.replace(/\/+$/, "");
    this.maxAnswerBytes = o.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  }

  /** The answer's body as JSON (not JSON is a failure that may pass: a proxy's error page). */
  json<T = unknown>(method: HttpMethod, path: string, o: CallOptions): Promise<Reply<T>> {
    return this.request(method, path, o, (body) => JSON.parse(utf8.decode(body)) as T);
  }

  /** The answer's body as bytes (receipts, statements). */
  bytes(method: HttpMethod, path: string, o: CallOptions): Promise<Reply<Uint8Array>> {
    return this.request(method, path, o, (body) => body);
  }

  /** Sends the request until it succeeds, fails for good, or the retry budget is spent. */
  private async request<T>(
    method: HttpMethod,
    path: string,
    o: CallOptions,
    read: Read<T>,
  ): Promise<Reply<T>> {
    const tries: Tries = { failures: 0, waits: 0, refreshed: false };
    for (;;) {
      // The client's signal outlives this request: undici gets one of its own (signal-lease.ts).
      const lease = leaseSignal(this.signal);
      try {
        const outcome = await this.once(method, path, o, tries, read, lease.signal);
        if (outcome.done) return outcome.reply;
        await sleep(outcome.wait, lease.signal);
      } finally {
        lease.release();
      }
    }
  }

  private url(path: string, query?: CallOptions["query"]): string {
    const u = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(query ?? {}))
      for (const one of typeof v === "string" ? [v] : v) u.searchParams.append(k, one);
    return u.toString();
  }

  private headers(token: string | undefined, o: CallOptions): Record<string, string> {
    const body = o.body;
    return {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      "content-type": body && "bytes" in body ? body.contentType : "application/json",
      ...this.o.headers,
      ...o.headers,
    };
  }

  private async once<T>(
    method: HttpMethod,
    path: string,
    o: CallOptions,
    s: Tries,
    read: Read<T>,
    signal: AbortSignal,
  ): Promise<Outcome<T>> {
    const { policy } = this;
    const observer = this.o.observer;
    let res: HttpAnswer;
    let token: string | undefined;
    try {
      token = await this.o.tokens?.get(signal);
      const body =
        o.body === undefined ? undefined : "json" in o.body ? JSON.stringify(o.body.json) : o.body.bytes;
      res = await this.send(this.url(path, o.query), {
        method,
        headers: this.headers(token, o),
        ...(body === undefined ? {} : { body }),
        signal,
        timeoutMs: policy.requestTimeoutMs,
      });
    } catch (err) {
      if (signal.aborted || err instanceof ApiRefusedError) throw err;
      observer?.answered?.(o.route, "error");
      return this.transient(s, `${o.route}: ${(err as Error).message}`, err, undefined, o.retryUnknown);
    }
    observer?.answered?.(o.route, String(res.status));
    if ((res.status >= 200 && res.status < 300) || o.answers?.includes(res.status)) {
      let body: T;
      try {
        body = read(await res.body(o.maxAnswerBytes ?? this.maxAnswerBytes));
      } catch (err) {
        if (signal.aborted) throw err;
        // Too large, cut, late, not JSON (a proxy's page): as good as no answer. A write's outcome
        // is then unknown (the caller looks before sending it again); a read is asked again.
        const why = err instanceof SyntaxError ? "a body that is not JSON" : (err as Error).message;
        return this.transient(
          s,
          `${o.route} answered ${res.status} with an answer that cannot be read: ${why}`,
          undefined,
          res.status,
          o.retryUnknown,
        );
      }
      return { done: true, reply: { status: res.status, headers: res.headers, body } };
    }
    const text = await res
      .body(ERROR_TEXT_BYTES)
      .then((b) => utf8.decode(b).slice(0, 500))
      .catch(() => "");
    if (res.status === 401 && !s.refreshed && token !== undefined) {
      s.refreshed = true;
      this.o.tokens?.invalidate(token);
      return { done: false, wait: 0 };
    }
    if (res.status === 429) return this.rateLimited(s, res, o.route);
    // A redirect is not followed (a write would go to where it points, which nobody chose): a
    // proxy's misstep, and for a write an unknown outcome, as a 5xx is.
    if (res.status >= 500 || res.status === 408 || (res.status >= 300 && res.status < 400))
      return this.transient(
        s,
        `${o.route} answered ${res.status}${res.status < 400 ? " (redirects are not followed)" : ""}: ${text}`,
        undefined,
        res.status,
        o.retryUnknown,
      );
    throw this.errors.refused(`${method} ${path} answered ${res.status}: ${text}`, res.status);
  }

  private transient(
    s: Tries,
    message: string,
    cause?: unknown,
    status?: number,
    retry = true,
  ): Outcome<never> {
    s.failures += 1;
    const retryAfter = cause instanceof ApiUnavailableError ? cause.retryAfterMs : undefined;
    if (!retry || s.failures > this.policy.inlineRetries)
      throw this.errors.unavailable(message, status, retryAfter);
    const { baseDelayMs, maxDelayMs } = this.policy;
    const wait = retryAfter ?? exponentialDelay(baseDelayMs, maxDelayMs, s.failures, 0.5);
    this.o.observer?.retrying?.(message, wait);
    return { done: false, wait };
  }

  private rateLimited(s: Tries, res: HttpAnswer, route: string): Outcome<never> {
    const p = this.policy;
    // A service's reset value is trusted up to an hour: a hostile or broken one cannot park callers for ever.
    const wait = Math.min(
      MAX_RESET_MS,
      rateLimitWaitMs(res.headers) ?? exponentialDelay(p.baseDelayMs, p.maxDelayMs, s.waits + 1),
    );
    s.waits += 1;
    if (s.waits > p.maxRateLimitWaits || wait > p.maxRateLimitWaitMs)
      throw this.errors.unavailable(`${route} rate limited`, 429, wait);
    this.o.observer?.rateLimited?.(route, wait);
    return { done: false, wait };
  }
}
