import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type Logger, pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import { type RunningConserver, runConserver } from "../../../plugins/conserver/runtime/run-conserver.js";
import { FakeArchivist } from "../../unit/conserver/fake-archivist.js";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** True when Redis answers PING; in CI an absent Redis is a failure, never a skip. */
export async function redisUp(): Promise<boolean> {
  const r = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    if (process.env.CI === "true")
      throw new Error(`Redis is required in CI but ${REDIS_URL} does not answer`);
    console.warn(`conserver Redis tests skipped: no Redis at ${REDIS_URL} (set REDIS_URL; in CI this fails)`);
    return false;
  } finally {
    r.disconnect();
  }
}

/** A name unique to this test run (the suite runs once per database project, concurrently). */
export function uniqueName(what: string): string {
  return `t${randomBytes(5).toString("hex")}-${what}`;
}

/** Deletes every key starting with `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== "0");
}

/** The fake archivist behind a real HTTP server on 127.0.0.1. */
export async function serveFake(
  fake = new FakeArchivist(),
): Promise<{ fake: FakeArchivist; url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const a = await fake.handle(req.method ?? "GET", url, headers, Buffer.concat(chunks).toString("utf8"));
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    fake,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until true (or fails after `ms`). */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 8000,
  what = "condition",
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * `archivist conserver run` on a config written for one test file: vCons under `<prefix>:vcon:`,
 * quick pops and retries, silent logs.
 */
export async function runTestConserver(
  prefix: string,
  configYaml: string,
  log: Logger = pino({ level: "silent" }),
): Promise<RunningConserver> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  writeFileSync(join(dir, "conserver.yml"), configYaml);
  return runConserver(join(dir, "conserver.yml"), {
    redisUrl: REDIS_URL,
    log,
    vconKeyPrefix: `${prefix}:vcon:`,
    popTimeoutS: 1,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
}

/** What `conserverOnFake` runs for a suite: its Redis client, the fake archivist and the conserver. */
export interface ConserverOnFake {
  readonly redis: Redis;
  readonly backend: Awaited<ReturnType<typeof serveFake>>;
  readonly running: RunningConserver;
}

/**
 * A suite's `archivist conserver run` (`runTestConserver`) delivering to a fake archivist, started
 * before its tests with the config `configFor` writes for the fake's URL; after them, all is closed
 * and the suite's Redis keys (those of `prefix`, and the dead letters of `ingress`) deleted.
 */
export function conserverOnFake(
  prefix: string,
  ingress: string,
  configFor: (backendUrl: string) => string,
  log?: Logger,
): ConserverOnFake {
  const suite = {} as { redis: Redis; backend: ConserverOnFake["backend"]; running: RunningConserver };
  beforeAll(async () => {
    suite.redis = new Redis(REDIS_URL);
    suite.backend = await serveFake();
    suite.running = await runTestConserver(prefix, configFor(suite.backend.url), log);
  });
  afterAll(async () => {
    await suite.running?.close();
    await suite.backend?.close();
    await deleteKeys(suite.redis, prefix);
    await suite.redis.del(`DLQ:${ingress}`);
    await suite.redis.quit();
  });
  return suite;
}
