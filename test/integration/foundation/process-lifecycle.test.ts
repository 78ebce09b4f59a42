import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../../helpers/child-service.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { type PausableProxy, pausableProxy } from "../../helpers/pausable-proxy.js";
import { seedPglite } from "../../helpers/pglite-template.js";
import { freePort } from "../../helpers/ports.js";
import { REDIS_URL, redisUp } from "../conserver/redis-env.js";

// Issue 31: the wedged service never exited on SIGTERM and its /readyz hung. Whatever holds the
// database up, SIGTERM ends the process within ARCHIVIST_SHUTDOWN_TIMEOUT_MS and /readyz answers
// 503 within its own deadline. The service runs in its own process, started as users do.
const engine = testEngine();
const redisReachable = await redisUp();
const STALL = fileURLToPath(new URL("../../helpers/stall-pglite.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "archivist-lifecycle-"));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Life {
  dataDir: string;
  env: Record<string, string>;
  /** PostgreSQL: the database's URL, not through any proxy. */
  directUrl?: string;
}

/** A fresh data directory (and PostgreSQL database), reached through `proxy` when given. */
async function freshLife(opts: {
  proxy?: boolean;
  shutdownMs: number;
}): Promise<Life & { proxy?: PausableProxy }> {
  const dataDir = mkdtempSync(join(root, "data-"));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    ARCHIVIST_BOOTSTRAP_FILE: "",
    REDIS_URL: "",
    ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
    ARCHIVIST_SEAL_INTERVAL_MS: "200",
    ARCHIVIST_SHUTDOWN_TIMEOUT_MS: String(opts.shutdownMs),
    ARCHIVIST_TEST_STALL_FILE: join(dataDir, "stall"),
  };
  if (engine === "pglite") {
    // The first start's initdb is restart-as-users-do's; these lives are about what follows it.
    await seedPglite(dataDir);
    return { dataDir, env };
  }
  const db = await freshPostgresDatabase();
  cleanups.push(db.drop);
  let url = db.url;
  let proxy: PausableProxy | undefined;
  if (opts.proxy) {
    const u = new URL(db.url);
    proxy = await pausableProxy({ host: u.hostname, port: Number(u.port || 5432) });
    cleanups.push(() => proxy?.close() ?? Promise.resolve());
    u.port = String(proxy.port);
    url = u.toString();
  }
  env.DATABASE_URL = url;
  return { dataDir, env, directUrl: db.url, ...(proxy ? { proxy } : {}) };
}

async function start(life: Life): Promise<ChildService> {
  const s = await startChild(
    "serve",
    life.env,
    await freePort(),
    120_000,
    engine === "pglite" ? [STALL] : [],
  );
  cleanups.push(() => s.kill("SIGKILL"));
  return s;
}

/** Sends SIGTERM; the exit status, or "hung" when the process is still there after `withinMs`. */
async function terminate(s: ChildService, withinMs: number): Promise<number | null | "hung"> {
  if (s.proc.exitCode !== null) return s.proc.exitCode;
  const exited = new Promise<number | null>((r) => s.proc.once("exit", (code) => r(code)));
  s.proc.kill("SIGTERM");
  return Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), withinMs))]);
}

/** /readyz's status once it answers 200, or the last one after 50 tries 200 ms apart. */
async function readyzOnceRecovered(s: ChildService): Promise<number> {
  let status = 0;
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = (await fetch(`${s.url}/readyz`, { signal: AbortSignal.timeout(15_000) })).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 200));
  }
  return status;
}

async function ownerToken(s: ChildService, life: Life): Promise<string> {
  const creds = JSON.parse(readFileSync(join(life.dataDir, "bootstrap.json"), "utf8")) as Record<
    string,
    string
  >;
  const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: creds.client_id ?? "",
      client_secret: creds.client_secret ?? "",
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

const post = (s: ChildService, token: string, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${s.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

/** Makes the database stop answering: PGlite's statements stall, PostgreSQL's host goes silent. */
function stallDatabase(life: Life & { proxy?: PausableProxy }): () => void {
  if (life.proxy) {
    life.proxy.pause();
    return () => life.proxy?.resume();
  }
  const flag = life.env.ARCHIVIST_TEST_STALL_FILE as string;
  writeFileSync(flag, "");
  return () => rmSync(flag, { force: true });
}

describe(`process lifecycle (${engine})`, () => {
  it("SIGTERM under load drains in-flight writes and exits by itself; every write it answered is there after a restart", {
    timeout: 240_000,
  }, async () => {
    const life = await freshLife({ shutdownMs: 20_000 });
    const s = await start(life);
    const token = await ownerToken(s, life);
    const asset = (await (
      await post(s, token, "/archivist/v2/assets", { attributes: { k: "load" } })
    ).json()) as {
      identity: string;
    };
    const answered: string[] = [];
    let firstAnswers: () => void = () => undefined;
    const someAnswered = new Promise<void>((r) => {
      firstAnswers = r;
    });
    const writes = Array.from({ length: 150 }, (_, i) =>
      post(s, token, `/archivist/v2/${asset.identity}/events`, {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { n: String(i) },
      }).then(
        async (res) => {
          if (res.status === 200) answered.push(((await res.json()) as { identity: string }).identity);
          if (answered.length >= 10) firstAnswers();
        },
        () => undefined,
      ),
    );
    await someAnswered;
    expect(await terminate(s, 40_000)).toBe(0);
    await Promise.all(writes);
    expect(answered.length).toBeGreaterThanOrEqual(10);

    const again = await start(life);
    const token2 = await ownerToken(again, life);
    for (const id of answered) {
      const res = await fetch(`${again.url}/archivist/v2/${id}`, {
        headers: { authorization: `Bearer ${token2}` },
      });
      expect(res.status, id).toBe(200);
    }
    expect(await terminate(again, 40_000)).toBe(0);
  });

  it("SIGTERM with a query stuck on the database ends the process within ARCHIVIST_SHUTDOWN_TIMEOUT_MS", {
    timeout: 240_000,
  }, async () => {
    const life = await freshLife({ shutdownMs: 3000 });
    const s = await start(life);
    const token = await ownerToken(s, life);
    // PGlite: every statement stalls. PostgreSQL: another session holds the assets table, so
    // the asset's insert waits on its lock (with the connection's pool slot).
    let release: () => Promise<void>;
    if (engine === "postgres") {
      const locker = new pg.Client({ connectionString: life.directUrl });
      await locker.connect();
      await locker.query("begin");
      await locker.query("lock table assets in access exclusive mode");
      release = async () => {
        await locker.query("rollback").catch(() => undefined);
        await locker.end();
      };
      cleanups.push(release);
    } else {
      const resume = stallDatabase(life);
      release = async () => resume();
      cleanups.push(release);
    }
    const stuck = [
      post(s, token, "/archivist/v2/assets", { attributes: { k: "stuck" } }).catch(() => undefined),
      fetch(`${s.url}/archivist/v2/assets`, { headers: { authorization: `Bearer ${token}` } }).catch(
        () => undefined,
      ),
    ];
    // The requests reach the database and wait there.
    await new Promise((r) => setTimeout(r, 1000));
    expect(s.proc.exitCode).toBeNull();
    const status = await terminate(s, 30_000);
    expect(status).not.toBe("hung");
    expect(status).toBe(1);
    await Promise.all(stuck);
    await release();
    // The next start takes the directory (its lock was given up at exit) and answers.
    const again = await start(life);
    const token2 = await ownerToken(again, life);
    expect((await post(again, token2, "/archivist/v2/assets", { attributes: { k: "after" } })).status).toBe(
      200,
    );
    expect(await terminate(again, 40_000)).toBe(0);
    if (engine === "pglite") expect(existsSync(`${join(life.dataDir, "pgdata")}.lock`)).toBe(false);
  });

  it("/readyz answers 503 within its deadline while the database does not answer, /healthz stays 200, and /readyz recovers", {
    timeout: 240_000,
  }, async () => {
    const life = await freshLife({ proxy: true, shutdownMs: 3000 });
    const s = await start(life);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const resume = stallDatabase(life);
    cleanups.push(async () => resume());
    for (let i = 0; i < 3; i++) {
      // A hang would end in this test's abort, not in an answer.
      const res = await fetch(`${s.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: number; message: string; details: unknown[] };
      expect(body).toMatchObject({ code: 14, details: [] });
      expect(body.message).toMatch(/did not answer within \d+ ms/);
    }
    const health = await fetch(`${s.url}/healthz`, { signal: AbortSignal.timeout(15_000) });
    expect(health.status).toBe(200);
    resume();
    expect(await readyzOnceRecovered(s)).toBe(200);
    expect(await terminate(s, 40_000)).not.toBe("hung");
  });
  // Without Redis it is skipped locally; with CI=true redisUp throws instead.
  it.skipIf(!redisReachable)(
    "/readyz answers 503 within its deadline while Redis does not answer, and recovers",
    {
      timeout: 240_000,
    },
    async () => {
      const u = new URL(REDIS_URL);
      const proxy = await pausableProxy({ host: u.hostname, port: Number(u.port || 6379) });
      cleanups.push(() => proxy.close());
      const life = await freshLife({ shutdownMs: 3000 });
      u.hostname = "127.0.0.1";
      u.port = String(proxy.port);
      life.env.REDIS_URL = u.toString();
      const s = await start(life);
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      proxy.pause();
      const res = await fetch(`${s.url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toMatch(/did not answer within \d+ ms/);
      proxy.resume();
      expect(await readyzOnceRecovered(s)).toBe(200);
      expect(await terminate(s, 40_000)).not.toBe("hung");
    },
  );
});
