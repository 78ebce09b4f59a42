import { Agent, request } from "undici";

/** A fetch: the global one, or one a test or a custom transport injects. */
export type FetchFn = typeof fetch;

/** Reads headers of an answer by name, case-insensitively (as `Headers.get`). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** What a client reads of an HTTP answer (a fetch `Response` has it, so does undici's). */
export interface HttpAnswer {
  status: number;
  headers: HeaderReader;
  json(): Promise<unknown>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export type HttpMethod = "GET" | "POST";

export interface HttpRequest {
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Sends one request; throws on network failures and timeouts, like fetch. */
export type HttpSend = (url: string, r: HttpRequest) => Promise<HttpAnswer>;

/** A sender over an injected fetch (tests, custom transports). */
export function fetchSender(fetchFn: FetchFn): HttpSend {
  return (url, r) =>
    fetchFn(url, {
      method: r.method,
      headers: r.headers,
      // Any Uint8Array is a body to fetch; the DOM types ask for one over an ArrayBuffer only.
      ...(r.body === undefined ? {} : { body: r.body as BodyInit }),
      signal: AbortSignal.any([r.signal, AbortSignal.timeout(r.timeoutMs)]),
    });
}

class UndiciHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }
}

let shared: Agent | undefined;

/**
 * The default sender: undici's `request` over one keep-alive agent per process. fetch spent about
 * a third of the conserver delivery's CPU in stream and abort-signal plumbing per request; here the timeout
 * is undici's own and the job's signal is passed as it is.
 */
export function keepAliveSender(): HttpSend {
  shared ??= new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const dispatcher = shared;
  return async (url, r) => {
    const res = await request(url, {
      dispatcher,
      method: r.method,
      headers: r.headers,
      ...(r.body === undefined ? {} : { body: r.body }),
      signal: r.signal,
      headersTimeout: r.timeoutMs,
      bodyTimeout: r.timeoutMs,
    });
    return {
      status: res.statusCode,
      headers: new UndiciHeaders(res.headers),
      json: () => res.body.json(),
      text: () => res.body.text(),
      arrayBuffer: () => res.body.arrayBuffer(),
    };
  };
}
