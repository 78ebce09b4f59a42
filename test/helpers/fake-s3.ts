import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signS3Request } from "../../src/store/blobstore/sigv4.js";

/** A tiny S3-compatible object store for tests: PUT/GET/HEAD/DELETE with ranges, refusing unsigned or badly signed requests. */
export interface FakeS3 {
  endpoint: string;
  objects: Map<string, Buffer>;
  requests: number;
  /**
   * Awaited before each signed request's answer is sent, after the request took effect (a PUT
   * stored, a DELETE removed, a HEAD or GET read): a test holds an answer to order a race.
   */
  gate: ((method: string, key: string) => Promise<void>) | undefined;
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });

/** Starts the fake store; requests must be signed with `secret` (the signature is recomputed and compared). */
export async function startFakeS3(
  accessKeyId: string,
  secret: string,
  region = "us-east-1",
): Promise<FakeS3> {
  const objects = new Map<string, Buffer>();
  const state = { requests: 0 };
  const server: Server = createServer(async (req, res) => {
    state.requests++;
    const data = await body(req);
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const auth = String(req.headers.authorization ?? "");
    const signedNames = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(";") ?? [];
    const extra: Record<string, string> = {};
    for (const n of signedNames)
      if (!["host", "x-amz-content-sha256", "x-amz-date"].includes(n))
        extra[n] = String(req.headers[n] ?? "");
    const amz = String(req.headers["x-amz-date"] ?? "");
    const now = new Date(
      `${amz.slice(0, 4)}-${amz.slice(4, 6)}-${amz.slice(6, 8)}T${amz.slice(9, 11)}:${amz.slice(11, 13)}:${amz.slice(13, 15)}Z`,
    );
    const want = signS3Request({
      method: req.method ?? "GET",
      url,
      region,
      accessKeyId,
      secretAccessKey: secret,
      payload: data,
      headers: extra,
      now,
    });
    const payloadOk = req.headers["x-amz-content-sha256"] === createHash("sha256").update(data).digest("hex");
    if (!auth || want.authorization !== auth || !payloadOk) {
      res.writeHead(403).end("SignatureDoesNotMatch");
      return;
    }
    const key = url.pathname;
    const obj = objects.get(key);
    if (req.method === "PUT") objects.set(key, data);
    else if (req.method === "DELETE") objects.delete(key);
    await api.gate?.(req.method ?? "GET", key);
    if (req.method === "PUT") res.writeHead(200).end();
    else if (req.method === "DELETE") res.writeHead(204).end();
    else if (!obj) res.writeHead(404).end();
    else if (req.method === "HEAD") res.writeHead(200, { "content-length": obj.length }).end();
    else {
      const m = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
      if (m) res.writeHead(206).end(obj.subarray(Number(m[1]), Number(m[2]) + 1));
      else res.writeHead(200).end(obj);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const api: FakeS3 = {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    get requests() {
      return state.requests;
    },
    gate: undefined,
    close: () => new Promise((r) => server.close(() => r())),
  };
  return api;
}
