import type { Socket } from "node:net";
import accepts from "accepts";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { type Problem, problemDetails, problemJson } from "../core/scitt/index.js";
import { ApiError, errorStatus } from "../errors/api-error.js";
import { RegistrationClosed, RegistrationRefused } from "../services/scitt/scitt.js";
import { notFoundPage } from "./not-found-page.js";
import { requestLogger } from "./request-log.js";
import { PAGE_CSP } from "./static-files.js";

/** Maps anything thrown to the spec's status and `{code, message, details}`: the one place that does. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as Partial<FastifyError> | undefined;
  if (fe?.code === "FST_ERR_CTP_BODY_TOO_LARGE")
    return new ApiError("payload_too_large", "request body is too large");
  if (fe?.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH")
    return new ApiError("invalid_argument", "request body length does not match content-length");
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500)
    return new ApiError("invalid_argument", "request is malformed");
  return new ApiError("internal", "storage or internal error");
}

/** Writes an error response. */
export function sendError(res: FastifyReply, err: ApiError): FastifyReply {
  const status = errorStatus[err.kind];
  return res
    .headers(err.headers)
    .code(status.http)
    .send({ code: status.grpc, message: err.message, details: err.details });
}

const SCITT_REJECTED = "urn:ietf:params:scitt:error:signed-statement:rejected";
const PROBLEM_CBOR = "application/concise-problem-details+cbor";

/**
 * SCRAPI's failures as problem details, with the headers they need: a policy refusal, a
 * registration that needs a token, or the status of the error's ApiError kind. Undefined for an
 * internal fault, which the server's error handler answers.
 */
export function scittProblem(
  err: unknown,
): { problem: Problem; headers: Record<string, string> } | undefined {
  if (err instanceof RegistrationRefused)
    return {
      problem: {
        title: "Signed statement rejected by the registration policy",
        detail: err.message,
        status: 400,
        type: SCITT_REJECTED,
      },
      headers: {},
    };
  if (err instanceof RegistrationClosed)
    return {
      problem: { title: "Registration requires authentication", detail: err.message, status: 401 },
      headers: { "www-authenticate": "Bearer" },
    };
  const e = toApiError(err);
  if (e.kind === "internal") return undefined;
  return {
    problem: { title: e.kind.replace(/_/g, " "), detail: e.message, status: errorStatus[e.kind].http },
    headers: e.headers,
  };
}

/** A registration policy's refusal of a DataTrails-form registration: `{type, detail}` JSON (400). */
export function dataTrailsRefusal(err: unknown): { type: string; detail: string } | undefined {
  return err instanceof RegistrationRefused ? { type: SCITT_REJECTED, detail: err.message } : undefined;
}

/** SCRAPI answers errors as concise problem details (CBOR), or RFC 9457 JSON to clients that ask for JSON. */
export function sendProblem(
  req: FastifyRequest,
  res: FastifyReply,
  p: Problem,
  headers: Record<string, string> = {},
): FastifyReply {
  res.code(p.status ?? 400).headers(headers);
  if (
    accepts(req.raw)
      .type([PROBLEM_CBOR, "application/cbor", "application/problem+json", "application/json"])
      ?.toString()
      .includes("json")
  )
    return res.header("content-type", "application/problem+json").send(problemJson(p));
  return res.header("content-type", PROBLEM_CBOR).send(Buffer.from(problemDetails(p)));
}

/** The server's error handler: logs real faults, answers clean JSON always. */
export function errorHandler(log: Logger) {
  return (err: unknown, req: FastifyRequest, res: FastifyReply): FastifyReply | undefined => {
    const apiError = toApiError(err);
    if (apiError.kind === "internal") requestLogger(log, req).error({ err }, "request failed");
    if (res.sent || res.raw.headersSent) {
      res.raw.destroy();
      return undefined;
    }
    return sendError(res, apiError);
  };
}

/** The documented path of a request path: `/@verb` back to `:verb`, the query left out. */
function documentedPath(url: string): string {
  const q = url.indexOf("?");
  return (q < 0 ? url : url.slice(0, q)).replace(/\/@/, ":");
}

/**
 * Unknown routes: 404 with the same body as every other error, or, to a browser asking for a
 * page (`Accept` preferring text/html over JSON), a page with the way back.
 */
export function sendNotFound(req: FastifyRequest, res: FastifyReply): FastifyReply {
  const page =
    (req.method === "GET" || req.method === "HEAD") &&
    accepts(req.raw).type(["application/json", "text/html"]) === "text/html";
  if (page)
    return (
      res
        .code(404)
        .header("content-type", "text/html; charset=utf-8")
        // A page of ours (its stylesheet), not an API answer: the pages' policy, not the API's sandbox.
        .header("content-security-policy", PAGE_CSP)
        .send(notFoundPage(documentedPath(req.url)))
    );
  return sendError(res, new ApiError("not_found", `no route for ${req.method} ${documentedPath(req.url)}`));
}

/**
 * A request the HTTP parser refused (malformed, headers too large): the API's error body on a
 * raw socket, then the connection closes, as nothing after it can be framed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "request headers are too large"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT" || err.code === "ERR_HTTP_HEADERS_TIMEOUT"
        ? [408, "Request Timeout", "the request did not arrive in time"]
        : [400, "Bad Request", "request is malformed"];
  const body = JSON.stringify({ code: 3, message, details: [] });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
