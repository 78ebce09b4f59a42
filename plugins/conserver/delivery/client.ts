import type { Logger } from "pino";
import { backoffDelay, sleep } from "../queue/backoff.js";
import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";
import { fetchSender, type HttpAnswer, type HttpSend, keepAliveSender } from "./http.js";
import { credentialsKey, type DeliveryBackend } from "./job.js";
import type { ConserverMetrics } from "./metrics.js";
import { type RetryPolicy, rateLimitWaitMs } from "./retry-policy.js";
import type { FetchFn, TokenSource } from "./token-source.js";

export interface CallOptions {
  /** Metric label naming the operation (not the path: paths carry ids). */
  route: string;
  /** A list value repeats its key (a repeated key matches any of its values). */
  query?: Record<string, string | readonly string[]>;
  body?: unknown;
  /**
   * False for a write whose outcome a 5xx or a lost answer leaves unknown and which is not safe
   * to send twice: such a failure ends the call at once (the job's next attempt looks first).
   * 401 and 429 are still retried (the backend did not act on the request).
   */
  retryUnknown?: boolean;
}

export interface ClientOptions {
  /** A fetch to send with (tests); by default undici over a keep-alive agent. */
  fetch?: FetchFn;
  policy: RetryPolicy;
  signal: AbortSignal;
  metrics?: ConserverMetrics;
  log?: Logger;
}

const MAX_RESET_MS = 3_600_000;

type Outcome = { done: true; json: unknown } | { done: false; wait: number };

/** Archivist API calls for one job attempt: bearer tokens, one refetch on 401, waits on 429 and 5xx. */
export class ArchivistClient {
  private readonly send: HttpSend;
  /** The backend and credentials it sends as (`credentialsKey`). */
  readonly credentials: string;

  constructor(
    private readonly backend: DeliveryBackend,
    private readonly tokens: TokenSource,
    private readonly opts: ClientOptions,
  ) {
    this.send = opts.fetch ? fetchSender(opts.fetch) : keepAliveSender();
    this.credentials = credentialsKey(backend);
  }

  /** Sends the request until it succeeds, fails for good, or the attempt's retry budget is spent. */
  async call(method: "GET" | "POST", path: string, o: CallOptions): Promise<unknown> {
    const state = { failures: 0, waits: 0, refreshed: false };
    for (;;) {
      const outcome = await this.once(method, path, o, state);
      if (outcome.done) return outcome.json;
      await sleep(outcome.wait, this.opts.signal);
    }
  }

  private url(path: string, query?: CallOptions["query"]): string {
    const u = new URL(`${this.backend.url.replace(/\/+$/, "")}${path}`);
    for (const [k, v] of Object.entries(query ?? {}))
      for (const one of typeof v === "string" ? [v] : v) u.searchParams.append(k, one);
    return u.toString();
  }

  private headers(token: string): Record<string, string> {
    const h: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "DataTrails-User-Agent": "oss/conserverlink/0.3.0",
    };
    if (this.backend.partnerId) h["DataTrails-Partner-ID"] = this.backend.partnerId;
    return h;
  }

  private async once(
    method: "GET" | "POST",
    path: string,
    o: CallOptions,
    s: { failures: number; waits: number; refreshed: boolean },
  ): Promise<Outcome> {
    const { policy, signal } = this.opts;
    let res: HttpAnswer;
    let token = "";
    try {
      token = await this.tokens.get(signal);
      res = await this.send(this.url(path, o.query), {
        method,
        headers: this.headers(token),
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
        signal,
        timeoutMs: policy.requestTimeoutMs,
      });
    } catch (err) {
      if (signal.aborted || err instanceof PermanentDeliveryError) throw err;
      this.opts.metrics?.requests.inc({ route: o.route, status: "error" });
      return this.transient(s, `${o.route}: ${(err as Error).message}`, err, undefined, o.retryUnknown);
    }
    this.opts.metrics?.requests.inc({ route: o.route, status: String(res.status) });
    if (res.status >= 200 && res.status < 300) return { done: true, json: await this.json(res, o.route) };
    const text = (await res.text().catch(() => "")).slice(0, 500);
    if (res.status === 401 && !s.refreshed) {
      s.refreshed = true;
      this.tokens.invalidate(token);
      return { done: false, wait: 0 };
    }
    if (res.status === 429) return this.rateLimited(s, res, o.route);
    if (res.status >= 500 || res.status === 408)
      return this.transient(
        s,
        `${o.route} answered ${res.status}: ${text}`,
        undefined,
        res.status,
        o.retryUnknown,
      );
    throw new PermanentDeliveryError(`${method} ${path} answered ${res.status}: ${text}`, res.status);
  }

  private transient(
    s: { failures: number },
    message: string,
    cause?: unknown,
    status?: number,
    retry = true,
  ): Outcome {
    s.failures += 1;
    const retryAfter = cause instanceof TransientDeliveryError ? cause.retryAfterMs : undefined;
    if (!retry || s.failures > this.opts.policy.inlineRetries)
      throw new TransientDeliveryError(message, status, retryAfter);
    const { baseDelayMs, maxDelayMs } = this.opts.policy;
    const wait =
      retryAfter ??
      backoffDelay({ type: "exponential", delayMs: baseDelayMs, maxDelayMs, jitter: 0.5 }, s.failures);
    this.opts.log?.debug({ message, wait }, "archivist call failed; retrying");
    return { done: false, wait };
  }

  private rateLimited(s: { waits: number; failures: number }, res: HttpAnswer, route: string): Outcome {
    const p = this.opts.policy;
    // A backend's reset value is trusted up to an hour: a hostile or broken one cannot park jobs for ever.
    const wait = Math.min(
      MAX_RESET_MS,
      rateLimitWaitMs(res.headers) ??
        backoffDelay({ type: "exponential", delayMs: p.baseDelayMs, maxDelayMs: p.maxDelayMs }, s.waits + 1),
    );
    s.waits += 1;
    if (s.waits > p.maxRateLimitWaits || wait > p.maxRateLimitWaitMs)
      throw new TransientDeliveryError(`${route} rate limited`, 429, wait);
    this.opts.metrics?.rateLimited.inc();
    this.opts.log?.info({ route, wait }, "rate limited: waiting");
    return { done: false, wait };
  }

  private async json(res: HttpAnswer, route: string): Promise<unknown> {
    try {
      return await res.json();
    } catch {
      throw new TransientDeliveryError(
        `${route} answered ${res.status} with a body that is not JSON`,
        res.status,
      );
    }
  }
}
