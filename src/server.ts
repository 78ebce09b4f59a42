import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import pretty from "pino-pretty";
import { newCaches } from "./caches.js";
import { type Config, effectiveBaseUrl } from "./config.js";
import type { Ctx } from "./context.js";
import { buildApp } from "./http/app.js";
import { bindHttpServer } from "./http/listen.js";
import type { HeldLog } from "./keys/held-log.js";
import { LogGuard } from "./keys/log-guard.js";
import { openKeyring } from "./keys/open.js";
import { SignedStates } from "./keys/signed-state.js";
import { InvitationMailer } from "./services/identity/invitation-mailer.js";
import { provision } from "./services/identity/provisioning.js";
import { deliverNotices, scanRevocations } from "./services/lifecycle/revocation-notices.js";
import { RegistrationRate } from "./services/scitt/registration-rate.js";
import { openWritePath } from "./services/write/write-path.js";
import { openBlobStore } from "./store/blobstore/open.js";
import { openDb } from "./store/drivers/open.js";
import { primaryReads, replicaReads } from "./store/replication/replica-reads.js";
import { Standby } from "./store/replication/standby.js";
import { openVindex } from "./vindex/vindex.js";
import { PublicationWaiter } from "./wake/publication-waiter.js";
import { RedisWakeSignal } from "./wake/redis-wake-signal.js";
import { startWorkers, type Workers } from "./workers/index.js";
import { refreshStatistics } from "./workers/statistics.js";

/** A running service: its address, context, and a graceful stop. */
export interface RunningService {
  url: string;
  ctx: Ctx;
  server: Server | undefined;
  workers: Workers;
  close(): Promise<void>;
}

const COMMIT_TOPIC = "commit:";
const PUBLISHED_TOPIC = "published";
/** Published by `archivist keys` after a rotation or an accepted restore: every process re-reads the key directory. */
export const KEYS_TOPIC = "keys";

/** What `openContext` adds for the service's own wiring. */
interface ServiceContext extends Ctx {
  setWorkers(w: Workers): void;
  /** Wake-ups between processes (with REDIS_URL): an API-only process publishes, workers listen. */
  wakeSignal: RedisWakeSignal | undefined;
}

/**
 * The process's logger: JSON lines for a collector, readable lines for a person at a terminal
 * (`npm start`), pino's own way (pino-pretty) and only when the output is one.
 */
export function processLogger(
  level: string,
  out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Logger {
  const options = { level, base: { service: "archivist" } };
  if (out.isTTY)
    return pino(
      options,
      pretty({
        destination: out,
        colorize: true,
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname,service",
      }),
    );
  // stdout itself through pino's own fast destination; another stream (a test's) as it is.
  return out === process.stdout ? pino(options) : pino(options, out);
}

/**
 * Opens storage (migrating it) and builds the context every part of the service shares.
 * `crossProcessWake`: connect the Redis wake signal (the service; not one-shot CLI commands).
 */
export async function openContext(
  config: Config,
  opts: { crossProcessWake?: boolean; baseUrl?: string } = {},
): Promise<ServiceContext> {
  const log = processLogger(config.logLevel);
  if (!config.dataDir.startsWith("memory://")) mkdirSync(config.dataDir, { recursive: true });
  const db = await openDb(config);
  let workers: Workers | undefined;
  const wakeSignal =
    opts.crossProcessWake && config.redisUrl
      ? new RedisWakeSignal({ redisUrl: config.redisUrl, log })
      : undefined;
  // A process without workers would leave its records to the other processes' sweep
  // (ARCHIVIST_COMMIT_MAX_DELAY_MS); a wake-up through Redis lets them commit at once.
  // Best effort: the sweep still finds whatever a lost wake-up leaves.
  const commit = config.workers
    ? (t: string) => workers?.wakeCommit(t)
    : (t: string) => void wakeSignal?.notify(COMMIT_TOPIC + t).catch(() => undefined);
  let keys: Awaited<ReturnType<typeof openKeyring>>;
  try {
    keys = await openKeyring(config, db, log);
  } catch (err) {
    await db.close();
    throw err;
  }
  // Without wake-ups (a lost one, or another process without Redis) waiters find the seal by this poll.
  const publications = new PublicationWaiter(Math.min(250, config.sealIntervalMs));
  const published = () => {
    publications.published();
    void wakeSignal?.notify(PUBLISHED_TOPIC).catch(() => undefined);
  };
  const wake = { commit, published };
  const caches = newCaches();
  const reads = config.databaseReadUrl
    ? replicaReads(db, config.databaseReadUrl, { waitMs: config.readWaitMs, log })
    : primaryReads(db);
  const standby = config.databaseStandbyUrl
    ? new Standby(db, config.databaseStandbyUrl, log, config.standbyWaitMs)
    : undefined;
  const logGuard = new LogGuard(
    new SignedStates(config.keyDir),
    log,
    keys,
    // Loaded only when configured: the etcd client (gRPC, its protocol files) cost every start ~0.3 s of CPU.
    config.etcdEndpoints.length > 0
      ? new (await import("./keys/etcd-heads.js")).EtcdHeads(config.etcdEndpoints, config.etcdPrefix, log)
      : undefined,
  );
  return {
    db,
    reads,
    standby,
    config,
    baseUrl: opts.baseUrl ?? effectiveBaseUrl(config, config.port),
    log,
    keys,
    logGuard,
    vindex: await openVindex(keys, logGuard.basis, log, config.sealIntervalMs),
    wake,
    blobs: openBlobStore(config, db),
    caches,
    registrationRate: new RegistrationRate(),
    invitationMailer: new InvitationMailer(),
    // The write path: built once here; services append through it, the committer takes its hand-off.
    writePath: openWritePath({ db, keys, wake, caches }),
    publications,
    setWorkers: (w) => {
      workers = w;
    },
    wakeSignal,
  };
}

/** Hands the bound server's requests to the app built on `ctx`. */
async function serve(ctx: Ctx, bound: Server, readyExtra: () => Promise<void>): Promise<Server> {
  const built = buildApp(ctx, readyExtra, bound);
  await built.open();
  bound.on("close", () => void built.close());
  return bound;
}

/** Opens the context, closing the bound socket when that fails (a locked data directory, say). */
async function contextFor(config: Config, bound: Server | undefined, baseUrl: string) {
  try {
    return await openContext(config, { crossProcessWake: true, baseUrl });
  } catch (e) {
    bound?.close();
    throw e;
  }
}

/**
 * The service's close, run once however often it is called: the HTTP server first (so no request
 * starts work the workers would not finish), then the workers hand back their work, then the
 * connections and keys they used.
 */
function closer(
  ctx: ServiceContext,
  server: Server | undefined,
  keyWatch: NodeJS.Timeout,
  workers: Workers,
  shutdownTimeoutMs: number,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      if (server) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // In-flight requests get half the shutdown's time; then their connections close, so a
          // client holding one open, or a request stuck on the database, does not hold up the stop.
          setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs / 2).unref();
        });
      }
      clearInterval(keyWatch);
      await workers.stop();
      ctx.publications.close();
      await ctx.wakeSignal?.close();
      await ctx.reads.close();
      await ctx.standby?.close();
      await ctx.logGuard.shared?.heads.close();
      await ctx.db.close();
      await ctx.keys.close();
    })();
    return closing;
  };
}

/**
 * Serves the API (unless `api: false`, as `archivist worker` runs) and the workers (unless
 * the config disables them), until closed. SIGKILL at any point loses nothing: the
 * database holds every accepted record and the workers find their work there.
 */
export async function startService(config: Config, opts: { api?: boolean } = {}): Promise<RunningService> {
  // Bound first: the base URL is derived once, from the port actually bound, before anything uses it.
  const bound = opts.api === false ? undefined : await bindHttpServer(config);
  const port = bound ? (bound.address() as AddressInfo).port : config.port;
  const url = `http://${config.host}:${port}`;
  const ctx = await contextFor(config, bound, effectiveBaseUrl(config, port));
  let running: Workers | undefined;
  // Not ready until provisioning has run and the workers started (a token could not be had before).
  const ready = async () => {
    if (!running) throw new Error("starting: provisioning");
    // A log the service refuses to sign for is an outage an operator must resolve: not ready.
    const held = ctx.logGuard.heldLogs();
    if (held.length > 0)
      throw new Error(`refusing to sign: ${held.map((h) => `${h.reason} (${resolution(h)})`).join("; ")}`);
    // The logs' shared head must answer: without it nothing is signed.
    await ctx.logGuard.shared?.heads.ping();
    await running.ready();
    // Redis carries the wake-ups between processes (and the shared rate limit): readiness asks it too.
    await ctx.wakeSignal?.ping();
  };
  const server = bound && (await serve(ctx, bound, ready));
  await provision(ctx);
  // Before any worker signs: each log's database against what the service last signed for it.
  await ctx.logGuard.checkAll(ctx.db);
  // A rotation (archivist keys rotate) or an accepted restore, made by another process, reaches this one here.
  const refreshKeys = () =>
    void Promise.all([ctx.keys.reload(), ctx.logGuard.recheck(ctx.db)]).catch((err: unknown) =>
      ctx.log.error({ err }, "re-reading the key directory failed"),
    );
  const keyWatch = setInterval(refreshKeys, Math.max(config.keyReloadMs, 50));
  keyWatch.unref();
  // Seals in other processes reach this one's waiting requests.
  ctx.wakeSignal?.subscribe((topic) => {
    if (topic === PUBLISHED_TOPIC) ctx.publications.published();
    if (topic === KEYS_TOPIC) refreshKeys();
  });
  if (config.workers && ctx.wakeSignal) {
    // Listening before the workers start: their first sweep finds what was stored before,
    // and every wake-up published after it reaches them.
    // A Redis that does not answer only costs the wake-ups (the sweep remains): wait 5 s at most.
    const listening = ctx.wakeSignal.listening().then(() => true);
    const late = new Promise<false>((r) => setTimeout(() => r(false), 5000).unref());
    if (!(await Promise.race([listening, late])))
      ctx.log.warn("Redis did not answer: workers find new records by their sweep until it does");
    ctx.wakeSignal.subscribe((topic) => {
      if (topic.startsWith(COMMIT_TOPIC)) running?.wakeCommit(topic.slice(COMMIT_TOPIC.length));
    });
  }
  running = startWorkers(ctx, {
    none: !config.workers,
    periodic: periodicWork(ctx, config),
  });
  ctx.setWorkers(running);
  ctx.log.info(
    { url: server ? url : undefined, db: ctx.db.kind, workers: config.workers },
    "archivist started",
  );
  const workers = running;
  const close = closer(ctx, server, keyWatch, workers, config.shutdownTimeoutMs);
  return { url, ctx, server, workers, close };
}

/** What an operator does about a held log, naming it. */
function resolution(h: HeldLog): string {
  const log = `tenant/${h.tenant_id}`;
  if (h.kind === "refused") return `${log} is tried again each minute; docs/operator-powers.md`;
  if (h.kind === "head")
    return `another service signs ${log}: stop the one on the database that is no longer the log's, or run archivist keys accept-restore --log ${log} to make this database the log's (docs/scaling.md, "One head")`;
  return `resolve with archivist keys accept-restore --log ${log} (docs/keys.md)`;
}

/** The services' periodic work the workers run beside their own (a worker imports no service). */
function periodicWork(ctx: Ctx, config: Config) {
  return [
    {
      // A consent revocation reaches every registered processor that has not acknowledged it.
      name: "revocation-notifier",
      intervalMs: config.noticeIntervalMs,
      tick: async () => {
        await scanRevocations(ctx);
        await deliverNotices(ctx, ctx.log, config.noticeRetryBaseMs);
      },
    },
    ...(ctx.db.kind === "pglite" && config.statisticsIntervalMs > 0
      ? [
          {
            name: "statistics",
            intervalMs: config.statisticsIntervalMs,
            tick: () => refreshStatistics(ctx.db, ctx.log),
            // A database written while the service was down (a restore, a bulk load) is analysed at once.
            atStart: true,
          },
        ]
      : []),
  ];
}
