import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "@20minutes/s3rver";
import { AwsClient } from "aws4fetch";

/**
 * An S3-compatible server we did not write (s3rver, from npm: it checks every SigV4 signature
 * against its keys and keeps objects on disk), behind a pass-through proxy that counts requests
 * and lets a test hold an answer to order a race.
 */
export interface S3Server {
  /** The proxy's address: what the service under test is configured with. */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  requests: number;
  /**
   * Awaited before each answer is passed on, after s3rver has answered (a PUT stored, a DELETE
   * removed, a HEAD or GET read): a test holds an answer to order a race.
   */
  gate: ((method: string, key: string) => Promise<void>) | undefined;
  /** Whether the bucket holds `key` (asked of s3rver itself, signed). */
  has(key: string): Promise<boolean>;
  /** Every key in the bucket. */
  keys(): Promise<string[]>;
  /** Replaces the object at `key` with `bytes`, as a writer of the bucket could (signed for those bytes). */
  swap(key: string, bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

// s3rver's one built-in account; its signature check uses this secret.
const KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

const collect = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

export async function startS3Server(bucket = "blobs"): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), "archivist-s3rver-"));
  const s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const upstream = await s3.run();
  const state = { requests: 0 };
  const proxy: Server = createServer(async (req, res) => {
    state.requests++;
    const body = await collect(req);
    const answer = await new Promise<{ status: number; headers: IncomingMessage["headers"]; data: Buffer }>(
      (resolve, reject) => {
        // Headers pass unchanged (host too): the signature s3rver checks covers them.
        const up = request(
          {
            host: "127.0.0.1",
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          async (r) => resolve({ status: r.statusCode ?? 502, headers: r.headers, data: await collect(r) }),
        );
        up.on("error", reject);
        up.end(body);
      },
    );
    await api.gate?.(req.method ?? "GET", new URL(req.url ?? "/", "http://x").pathname);
    res.writeHead(answer.status, answer.headers).end(answer.data);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const { port } = proxy.address() as AddressInfo;
  const direct = new AwsClient({ ...KEYS, service: "s3", region: "us-east-1", retries: 0 });
  const base = `http://127.0.0.1:${upstream.port}`;
  const api: S3Server = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    ...KEYS,
    get requests() {
      return state.requests;
    },
    gate: undefined,
    has: async (key) => (await direct.fetch(`${base}${key}`, { method: "HEAD" })).ok,
    swap: async (key, bytes) => {
      const res = await direct.fetch(`${base}${key}`, { method: "PUT", body: Buffer.from(bytes) });
      if (!res.ok) throw new Error(`swapping ${key} answered ${res.status}`);
    },
    keys: async () => {
      const xml = await (await direct.fetch(`${base}/${bucket}?list-type=2`)).text();
      return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => `/${bucket}/${m[1]}`);
    },
    close: async () => {
      await new Promise<void>((r) => proxy.close(() => r()));
      await s3.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return api;
}
