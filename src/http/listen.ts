import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Config } from "../config.js";

/** The HTTP server's deadlines and keep-alive, from the configuration. */
function httpServerOptions(config: Pick<Config, "headersTimeoutMs" | "requestTimeoutMs">) {
  return {
    keepAliveTimeout: 65_000,
    // Deadlines for headers and for the whole request; the body has its own (`registerBodyParsers`).
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
    // Node checks the deadlines this often; its default of 30 s would let them overrun.
    connectionsCheckingInterval: 1000,
  };
}

/**
 * Answers every request while the service starts (its database opening, say): 503, try again.
 * `/healthz` is liveness, not readiness: the process is alive and serving HTTP, so it answers
 * 200 `starting`, or an orchestrator's liveness probe would restart a service whose migrations
 * simply take long (`/readyz` says when it takes traffic).
 */
function starting(req: IncomingMessage, res: ServerResponse): void {
  const live = (req.url ?? "").split("?")[0] === "/healthz";
  const body = JSON.stringify(
    live ? { status: "starting" } : { code: 14, message: "the service is starting", details: [] },
  );
  res.writeHead(live ? 200 : 503, {
    "content-type": "application/json",
    "x-content-type-options": "nosniff",
    "retry-after": "1",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * A request whose `Expect` names something other than `100-continue`: Node answers 417 itself,
 * with no body and none of the API's headers. The API's error body instead, and the connection
 * closed, since the body the client may still send was never read.
 */
function expectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({
    code: 3,
    message: `expectation ${JSON.stringify(String(req.headers.expect ?? "").slice(0, 100))} is not supported (only 100-continue)`,
    details: [],
  });
  res.writeHead(417, {
    "content-type": "application/json",
    "x-content-type-options": "nosniff",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  res.end(body);
}

/**
 * A CONNECT request (a proxy's tunnel), which never reaches the app: with nothing listening for
 * it, Node drops the connection without a word. The API's error body instead, then the close.
 */
function refuseTunnel(_req: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify({
    code: 3,
    message: "CONNECT is not served here: this is no proxy",
    details: [],
  });
  socket.on("error", () => socket.destroy());
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Binds the API's socket before anything else is built, so that the service's base URL (when
 * BASE_URL does not name it) is derived once from the port actually bound (`PORT=0` takes a free
 * one) and every part of the context is built with it. Until `serve` hands the requests to the
 * app, the socket answers 503.
 */
export async function bindHttpServer(config: Config): Promise<Server> {
  const server = createServer(httpServerOptions(config), starting);
  server.keepAliveTimeout = httpServerOptions(config).keepAliveTimeout;
  server.on("checkExpectation", expectationFailed);
  server.on("connect", refuseTunnel);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

/** Hands a bound server's requests to the app (`handler`), in place of the starting answer. */
export function serveWith(
  server: Server,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  server.removeListener("request", starting);
  server.on("request", handler);
}
