import { Agent, request } from "undici";
import { BodyTooLarge, readBounded } from "../net/bounded-body.js";
import { fetchWithin, timeLimit } from "../net/time-limit.js";

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
  /**
   * The body, at most `maxBytes` of it (a larger one is refused with `BodyTooLarge`, its stream
   * cancelled) and within the request's `timeoutMs`, counted from when it was sent: another
   * party's answer never holds more of our memory or time than its use needs.
   */
  body(maxBytes: number): Promise<Uint8Array>;
}

export type HttpMethod = "GET" | "POST";

export interface HttpRequest {
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
  /** For the whole exchange: the answer's headers and its body. */
  timeoutMs: number;
}

/**
 * Sends one request; throws on network failures and timeouts, like fetch. Redirects are answers,
 * never followed: a write sent on to where a 3xx points would go to a party nobody chose.
 */
export type HttpSend = (url: string, r: HttpRequest) => Promise<HttpAnswer>;

/** A sender over an injected fetch (tests, custom transports). */
export function fetchSender(fetchFn: FetchFn): HttpSend {
  return async (url, r) => {
    // One bound for headers and body, the job's signal folded in.
    const limit = timeLimit(r.timeoutMs, r.signal);
    let res: Response;
    try {
      res = await fetchWithin(
        fetchFn,
        url,
        {
          method: r.method,
          headers: r.headers,
          // Any Uint8Array is a body to fetch; the DOM types ask for one over an ArrayBuffer only.
          ...(r.body === undefined ? {} : { body: r.body as BodyInit }),
          redirect: "manual" as const,
        },
        limit,
      );
    } catch (err) {
      limit.clear();
      throw err;
    }
    return {
      status: res.status,
      headers: res.headers,
      body: async (max) => {
        try {
          return await readBounded(
            res,
            max,
            `the answer of ${r.method} ${new URL(url).pathname}`,
            limit.signal,
          );
        } finally {
          limit.clear();
        }
      },
    };
  };
}

class UndiciHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
  }
}

/** The answer took longer than the request's time: its stream is ended there. */
class AnswerTimeout extends Error {}

type UndiciBody = Awaited<ReturnType<typeof request>>["body"];

/**
 * An undici body read up to `max` bytes and until `deadline` (`performance.now()` time): undici's
 * own `bodyTimeout` bounds the wait between two chunks only, and a body trickling a byte at a
 * time would pass it for ever.
 */
async function readWithin(
  body: UndiciBody,
  declared: string | null,
  max: number,
  deadline: number,
  what: () => string,
): Promise<Uint8Array> {
  if (Number(declared ?? Number.NaN) > max) {
    body.destroy();
    throw new BodyTooLarge(`${what()} declared ${declared} bytes; at most ${max} are read`);
  }
  const timer = setTimeout(
    () => body.destroy(new AnswerTimeout(`${what()} was not read in time`)),
    Math.max(0, deadline - performance.now()),
  );
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        throw new BodyTooLarge(`${what()} is larger than ${max} bytes`);
      }
      chunks.push(chunk);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  } finally {
    clearTimeout(timer);
  }
}

let shared: Agent | undefined;

/**
 * The default sender: undici's `request` over one keep-alive agent per process. fetch spent about
 * a third of the conserver delivery's CPU in stream and abort-signal plumbing per request; here the timeout
 * is undici's own (for the headers) and one timer (for the body), and the job's signal is passed as it is.
 * undici's `request` follows no redirect.
 */
export function keepAliveSender(): HttpSend {
  shared ??= new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const dispatcher = shared;
  return async (url, r) => {
    const deadline = performance.now() + r.timeoutMs;
    const res = await request(url, {
      dispatcher,
      method: r.method,
      headers: r.headers,
      ...(r.body === undefined ? {} : { body: r.body }),
      signal: r.signal,
      headersTimeout: r.timeoutMs,
      bodyTimeout: r.timeoutMs,
    });
    const headers = new UndiciHeaders(res.headers);
    return {
      status: res.statusCode,
      headers,
      body: (max) =>
        readWithin(
          res.body,
          headers.get("content-length"),
          max,
          deadline,
          () => `the answer of ${r.method} ${new URL(url).pathname}`,
        ),
    };
  };
}
