import { type Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { unstorableIndex } from "../core/filters/text-guard.js";
import { ApiError, badRequest } from "../errors/api-error.js";
import { sendError } from "./errors.js";
import { queryObject } from "./route.js";

const MAX_DEPTH = 64;
const utf8 = new TextDecoder("utf-8", { fatal: true });

type BodyFault = { kind: "depth" } | { kind: "text"; path: string };

/**
 * The first reason a parsed JSON value cannot be accepted: nested past `limit`, or a key or
 * string PostgreSQL cannot store (NUL, unpaired surrogate). Caught here, such text would
 * otherwise fail a database write as a 500, and with it every request sharing its group commit.
 */
function faultOf(value: unknown, limit: number, path = "", depth = 0): BodyFault | undefined {
  if (typeof value === "string") return unstorableIndex(value) >= 0 ? { kind: "text", path } : undefined;
  // Raw COSE/CBOR bodies arrive as bytes, checked by their own decoder.
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return undefined;
  if (depth >= limit) return { kind: "depth" };
  const array = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const here = array ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    if (!array && unstorableIndex(k) >= 0) return { kind: "text", path: `${path ? `${path}.` : ""}<key>` };
    const fault = faultOf(v, limit, here, depth + 1);
    if (fault) return fault;
  }
  return undefined;
}

const JSON_LIMIT = 10 * 1024 * 1024;
const FORM_LIMIT = 64 * 1024;
const COSE_LIMIT = 1024 * 1024;
/** The least of the buffering parsers' limits (`bufferedLimit`). */
const SMALLEST_LIMIT = Math.min(JSON_LIMIT, FORM_LIMIT, COSE_LIMIT);

/** The charset a content type names, lower-cased; `undefined` when it names none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return m?.[1]?.toLowerCase();
}

/** Bytes to text: UTF-8 only (the one charset the API speaks), refusing invalid sequences. */
function utf8Text(contentType: string | undefined, bytes: Buffer): string {
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
    throw badRequest("request body encoding is not supported");
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
}

type Payload = Readable & { receivedEncodedLength?: number };

// A Map, not an object: `content-encoding: constructor` must not find Object.prototype's.
const DECODERS = new Map<string, () => Transform>([
  ["gzip", createGunzip],
  ["x-gzip", createGunzip],
  ["deflate", createInflate],
  ["br", createBrotliDecompress],
]);

/**
 * A compressed body (gzip, deflate, br) as the bytes it stands for; the parsers' limits then
 * apply to what it inflates to, so a small bomb cannot fill the memory. The inflater stops
 * itself at `limit` inflated bytes: a parser that refuses the body stops reading, and an
 * inflater left running would go on spending the CPU on the rest of the bomb.
 */
function decoded(encoding: string | undefined, payload: Payload, limit: number): Payload {
  const name = (encoding ?? "identity").trim().toLowerCase();
  if (name === "identity" || name === "") return payload;
  const decoder = DECODERS.get(name);
  if (!decoder) throw new ApiError("invalid_argument", `content-encoding ${name} is not supported`);
  const inflater = decoder();
  let out = 0;
  const inflated: Transform & { receivedEncodedLength?: number } = new Transform({
    transform(chunk: Buffer, _enc, done) {
      out += chunk.length;
      if (out <= limit) done(null, chunk);
      else {
        payload.unpipe(inflater);
        inflater.destroy();
        // What is still on the wire is drained unread, so the answer can reach the client.
        payload.resume();
        done(new ApiError("payload_too_large", "request body is too large"));
      }
    },
  });
  // The server compares what arrived on the wire with content-length; count it there.
  inflated.receivedEncodedLength = 0;
  payload.on("data", (chunk: Buffer) => {
    inflated.receivedEncodedLength = (inflated.receivedEncodedLength ?? 0) + chunk.length;
  });
  payload.on("error", (err) => inflated.destroy(err));
  // Bytes that do not inflate are the client's fault (400), not the server's.
  inflater.on("error", (err) => inflated.destroy(Object.assign(err, { statusCode: 400 })));
  payload.pipe(inflater).pipe(inflated);
  return inflated;
}

/** JSON bodies up to 10 MiB, valid UTF-8 only, nested at most 64 levels, storable text only. */
function parseJsonBody(contentType: string | undefined, bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  const text = utf8Text(contentType, bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  // Text decoded as valid UTF-8 holds no lone surrogate, and JSON.parse refuses a raw NUL: parsed
  // text can hold either only by a \u escape. Without one, only the depth is left to check, and
  // that walk names no paths (naming each key's path was ~1 % of a profile's samples under ingest).
  if (!text.includes("\\u")) {
    if (deeperThan(value, MAX_DEPTH))
      throw badRequest(`request body is nested deeper than ${MAX_DEPTH} levels`);
    return value;
  }
  return storable(value);
}

/** Whether a parsed JSON value nests objects or arrays `limit` levels deep or more (as `faultOf` counts). */
function deeperThan(value: unknown, limit: number, depth = 0): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth >= limit) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (deeperThan(v, limit, depth + 1)) return true;
    return false;
  }
  const map = value as Record<string, unknown>;
  for (const k in map) if (deeperThan(map[k], limit, depth + 1)) return true;
  return false;
}

/** The parsed body when it can be accepted, else the 400 that says why. */
function storable<T>(value: T): T {
  const fault = faultOf(value, MAX_DEPTH);
  if (fault?.kind === "depth") throw badRequest(`request body is nested deeper than ${MAX_DEPTH} levels`);
  if (fault?.kind === "text")
    throw badRequest(`${fault.path || "body"} contains a NUL character or an unpaired surrogate`);
  return value;
}

/** Form bodies (the token endpoint): repeated names become lists, as for query strings. */
function parseFormBody(contentType: string | undefined, bytes: Buffer): Record<string, string | string[]> {
  return storable(queryObject([...new URLSearchParams(utf8Text(contentType, bytes))]));
}

/** The body of a request whose content type no parser reads (a route expecting JSON says so). */
export const UNREAD_BODY: unique symbol = Symbol("unread body");

/**
 * The bytes of a body that names no media type, or names `application/octet-stream`: what
 * DataTrails' SCITT clients send a statement as. Only a route that asks for opaque bytes reads
 * them; to every other route they are a body of a type it does not take.
 */
export class OpaqueBody {
  constructor(readonly bytes: Uint8Array) {}
}

/** Reads an opaque body up to `limit` bytes (413 past it, the rest drained so the answer arrives). */
function readOpaque(payload: Readable, limit: number, done: (err: Error | null, body?: unknown) => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  payload.on("data", (chunk: Buffer) => {
    if (failed) return;
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
    else {
      failed = true;
      done(new ApiError("payload_too_large", "request body is too large"));
    }
  });
  payload.once("error", (err) => {
    if (!failed) done(err);
    failed = true;
  });
  payload.once("end", () => {
    if (!failed) done(null, new OpaqueBody(new Uint8Array(Buffer.concat(chunks))));
  });
}

/** A multipart body, left for its route to stream (the blob upload): its bytes as inflated. */
export class StreamedBody {
  constructor(readonly stream: Readable) {
    // The route may still be authorising when the body fails (bytes that do not inflate, the
    // body deadline): the failure waits here for it, instead of going unheard.
    stream.on("error", () => undefined);
  }
}

export interface BodyLimits {
  /** Largest multipart body, in inflated bytes. */
  multipartBytes: number;
  /** Deadline for reading a body, from the start of its parsing. */
  timeoutMs: number;
}

/** The largest body a content type may inflate to. */
function limitOf(contentType: string | undefined, limits: BodyLimits): number {
  const type = (contentType ?? "").toLowerCase();
  if (type.startsWith("multipart/")) return limits.multipartBytes;
  if (type.startsWith("application/x-www-form-urlencoded")) return FORM_LIMIT;
  if (type.includes("cose") || type.includes("cbor")) return COSE_LIMIT;
  return JSON_LIMIT;
}

/**
 * Past this many declared bytes, a body over its parser's limit is not read to its end: the
 * answer closes the connection instead (a client may then see its write fail before the 413).
 */
const DRAIN_MAX = 64 * 1024 * 1024;

/** The limit of the parser that buffers a body of this type; undefined for a type read by no buffering parser. */
function bufferedLimit(contentType: string | undefined): number | undefined {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/json" || /^application\/[^;\s]+\+json$/.test(type)) return JSON_LIMIT;
  if (type === "application/x-www-form-urlencoded") return FORM_LIMIT;
  if (type === "application/cose" || type === "application/cbor" || /^application\/[^;\s]+\+cose$/.test(type))
    return COSE_LIMIT;
  return undefined;
}

/** Whether the request carries body bytes (an empty form, `curl -d ''`, carries none). */
export const hasBody = (req: FastifyRequest) =>
  req.headers["transfer-encoding"] !== undefined ||
  (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0");

/**
 * A body still arriving after the deadline is answered 408 and its connection closed: a
 * client sending a byte a minute would otherwise hold its request, and whatever it locks, for
 * ever. Node's own deadlines (headersTimeout, requestTimeout) bound the rest.
 */
function bodyDeadline(req: FastifyRequest, res: FastifyReply, payload: Readable, ms: number): void {
  const timer = setTimeout(() => {
    if (!res.sent && !res.raw.headersSent) {
      res.header("connection", "close");
      sendError(res, new ApiError("request_timeout", `the request body did not arrive within ${ms} ms`));
    }
    res.raw.once("finish", () => req.raw.destroy());
    payload.destroy(new ApiError("request_timeout", "request body deadline passed"));
  }, ms);
  timer.unref();
  const clear = () => clearTimeout(timer);
  payload.once("end", clear);
  payload.once("error", clear);
  res.raw.once("close", clear);
}

/** `bodyDeadline` for a body still arriving; none for one that arrived whole, whose read failed or that was answered. */
function deadlineUnlessArrived(req: FastifyRequest, res: FastifyReply, payload: Readable, ms: number): void {
  if (!req.raw.complete && !payload.destroyed && !res.sent) bodyDeadline(req, res, payload, ms);
}

/**
 * The body parsers of the API. A parser that fails passes an `ApiError` on (400 with the
 * reason); a body over its limit is the server's 413. Multipart bodies (blob uploads) are
 * left for the route to stream; a body of no type or `application/octet-stream` is read as
 * `OpaqueBody` (COSE's limit); any other type is not read at all (`UNREAD_BODY`).
 */
export function registerBodyParsers(server: FastifyInstance, limits: BodyLimits): void {
  // Written with `done`, not async: a promise per request here was a measurable part of one.
  server.addHook("preParsing", (req, res, payload, done) => {
    if (!hasBody(req)) return done(null, payload);
    const declared = Number(req.headers["content-length"]);
    // A body within every buffering parser's limit (nearly all) needs no look at its type here.
    const limit = declared > SMALLEST_LIMIT ? bufferedLimit(req.headers["content-type"]) : undefined;
    if (limit !== undefined && declared > limit) {
      // Fastify would answer 413 and close the connection at once, while the client is still
      // sending: a Node client then often sees EPIPE, not the answer. The rest is read unread
      // (bounded in size here, in time by the body's deadline), as the compressed path does.
      if (declared > DRAIN_MAX) res.header("connection", "close");
      else {
        payload.resume();
        bodyDeadline(req, res, payload, limits.timeoutMs);
      }
      return done(new ApiError("payload_too_large", "request body is too large"));
    }
    let body: Payload;
    try {
      body = decoded(req.headers["content-encoding"], payload, limitOf(req.headers["content-type"], limits));
    } catch (err) {
      return done(err as Error);
    }
    // A body that has arrived whole (as a small one does, with its headers) cannot be late:
    // no timer and listeners for it. This hook runs as the headers are parsed, before the parser
    // reaches a body sent with them (a tick is still too soon): whether it arrived is asked once
    // the read is done, which spares nearly every request its timer and three listeners.
    if (body !== payload) bodyDeadline(req, res, body, limits.timeoutMs);
    else if (!req.raw.complete) setImmediate(deadlineUnlessArrived, req, res, body, limits.timeoutMs);
    done(null, body);
  });
  server.removeAllContentTypeParsers();
  const buffered = (
    types: Array<string | RegExp>,
    bodyLimit: number,
    parse: (ct: string | undefined, b: Buffer) => unknown,
  ) => {
    for (const type of types)
      server.addContentTypeParser(type, { parseAs: "buffer", bodyLimit }, (req, body, done) => {
        try {
          done(null, parse(req.headers["content-type"], typeof body === "string" ? Buffer.from(body) : body));
        } catch (err) {
          done(err as Error, undefined);
        }
      });
  };
  buffered(["application/json", /^application\/[^;\s]+\+json(?:\s*;|$)/i], JSON_LIMIT, parseJsonBody);
  buffered(["application/x-www-form-urlencoded"], FORM_LIMIT, parseFormBody);
  buffered(
    ["application/cose", "application/cbor", /^application\/[^;\s]+\+cose(?:\s*;|$)/i],
    COSE_LIMIT,
    (_ct, bytes) => bytes,
  );
  server.addContentTypeParser("multipart/form-data", (_req, payload, done) =>
    done(null, new StreamedBody(payload)),
  );
  server.addContentTypeParser("application/octet-stream", (_req, payload, done) =>
    readOpaque(payload, COSE_LIMIT, done),
  );
  server.addContentTypeParser("*", (req, payload, done) =>
    req.headers["content-type"] === undefined
      ? readOpaque(payload, COSE_LIMIT, done)
      : done(null, UNREAD_BODY),
  );
}
