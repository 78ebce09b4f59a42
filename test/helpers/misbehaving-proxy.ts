import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How the proxy answers a request it misbehaves on:
 * - `huge`: forwards it, then answers 200 with `hugeBytes` of JSON-looking bytes, streamed (never
 *   held in memory: one small chunk written again and again, as the client takes them);
 * - `slow`: forwards it, then answers 200 whose body trickles a byte at a time for `slowMs`;
 * - `html`: forwards it, then answers 200 with a proxy's HTML page;
 * - `fake`: does not forward it, and answers 200 `{}`;
 * - `redirect`: does not forward it, and answers 307 to `redirectTo`.
 */
export type Misbehaviour = "huge" | "slow" | "html" | "fake" | "redirect";

export interface MisbehavingProxyOptions {
  /** The real service, e.g. http://127.0.0.1:1234. */
  target: string;
  /** How to answer `req` (method and path): undefined forwards it as it is. */
  choose(req: IncomingMessage): Misbehaviour | undefined;
  hugeBytes?: number;
  slowMs?: number;
  redirectTo?: string;
}

/** An HTTP proxy in front of a service that answers as a broken or hostile backend would. */
export interface MisbehavingProxy {
  url: string;
  /** Misbehaving answers given, by kind. */
  counts: Record<Misbehaviour, number>;
  /** Bytes of huge answers written to clients (what they read before they hung up, and buffers). */
  hugeWritten: number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, "a");

/** The request sent on to the target; resolves with its answer, read whole (the real service's are small). */
function forward(target: URL, req: IncomingMessage, body: Buffer) {
  return new Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }>(
    (resolve, reject) => {
      const up = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on("error", reject);
        },
      );
      up.on("error", reject);
      up.end(body);
    },
  );
}

/** Writes `total` bytes as fast as the client reads them, and stops when it hangs up. */
function streamHuge(res: ServerResponse, total: number, proxy: MisbehavingProxy): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"identity":"');
  let left = total;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, CHUNK.length);
      left -= n;
      proxy.hugeWritten += n;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end('"}');
  };
  pump();
}

function trickle(res: ServerResponse, ms: number): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"identity":"');
  const until = Date.now() + ms;
  const timer = setInterval(() => {
    if (res.destroyed || Date.now() > until) {
      clearInterval(timer);
      if (!res.destroyed) res.end('"}');
      return;
    }
    res.write("a");
  }, 50);
  res.on("close", () => clearInterval(timer));
}

export async function misbehavingProxy(o: MisbehavingProxyOptions): Promise<MisbehavingProxy> {
  const target = new URL(o.target);
  const proxy: MisbehavingProxy = {
    url: "",
    counts: { huge: 0, slow: 0, html: 0, fake: 0, redirect: 0 },
    hugeWritten: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const how = o.choose(req);
      if (how) proxy.counts[how] += 1;
      const body = Buffer.concat(chunks);
      if (how === "fake") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end("{}");
      }
      if (how === "redirect") {
        res.writeHead(307, { location: `${o.redirectTo ?? "http://127.0.0.1:9"}${req.url ?? "/"}` });
        return void res.end();
      }
      forward(target, req, body).then(
        (up) => {
          if (how === "huge") return streamHuge(res, o.hugeBytes ?? 300 * 1024 * 1024, proxy);
          if (how === "slow") return trickle(res, o.slowMs ?? 5000);
          if (how === "html") {
            res.writeHead(200, { "content-type": "text/html" });
            return void res.end("<html><body><h1>Service temporarily unavailable</h1></body></html>");
          }
          const headers = { ...up.headers };
          delete headers["transfer-encoding"];
          delete headers.connection;
          res.writeHead(up.status, { ...headers, "content-length": String(up.body.length) });
          res.end(up.body);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return proxy;
}
