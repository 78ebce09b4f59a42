import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { ApiError, errorStatus } from "../core/api/api-error.js";
import { requestLogger } from "./request-log.js";

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
export function documentedPath(url: string): string {
  const q = url.indexOf("?");
  return (q < 0 ? url : url.slice(0, q)).replace(/\/@/, ":");
}

/** Unknown routes: 404 with the same body as every other error. */
export function sendNotFound(req: FastifyRequest, res: FastifyReply): FastifyReply {
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
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
