import { Redis } from "ioredis";
import { type Logger, pino } from "pino";
import type { RetryPolicy } from "vcon-archivist/client";
import { loadConfig } from "../config/load-config.js";
import type { ConserverConfig } from "../config/types.js";
import { type DeadLetterStore, deadLetterKey, RedisDeadLetterStore } from "../dead-letters/delivery-store.js";
import { BatchingDeliveryQueue, type DeliveryPayload } from "../delivery/batch.js";
import { RedisDeliveryClaims } from "../delivery/delivery-claims.js";
import type { DeliveryJob } from "../delivery/job.js";
import { type ConserverMetrics, conserverMetrics } from "../delivery/metrics.js";
import type { FetchFn } from "../delivery/token-source.js";
import { type DeliveryWorker, startDeliveryWorker } from "../delivery/worker.js";
import { ConserverError } from "../errors.js";
import { ClientConsentSource } from "../links/consent-source.js";
import type { LinkContext } from "../links/types.js";
import { createQueue } from "../queue/factory.js";
import type { JobQueue } from "../queue/types.js";
import { RedisVconStore } from "../store/redis-store.js";
import type { HashMode } from "../vcon.js";
import { type ResolvedLink, resolveLinks } from "./chain.js";
import { type LinkRuntime, startLinkRuntime } from "./redis-lists.js";
import { queueAcceptor, startWebhookIngress, type WebhookIngress } from "./webhook.js";

export interface RunConserverOptions {
  redisUrl: string;
  log?: Logger;
  /** Run the delivery worker in this process (default true); false: links only. */
  deliver?: boolean;
  /** Run the link runtime (default true); false: a delivery-only worker. */
  links?: boolean;
  scitt?: LinkContext["scitt"];
  /** Hash mode of links that name none (default `python-json-normalized`: the Python link's `vcon.hash`). */
  defaultHashMode?: HashMode;
  fetch?: FetchFn;
  retry?: Partial<RetryPolicy>;
  metrics?: ConserverMetrics;
  /** vCons the link runtime runs at once (CONSERVER_VCON_CONCURRENCY in vcon-server); default 1. */
  linkConcurrency?: number;
  /** Key prefix of stored vCons (default `vcon:`, the conserver's). */
  vconKeyPrefix?: string;
  /** Overrides for tests: BullMQ lock and stall timings. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  popTimeoutS?: number;
}

export interface RunningConserver {
  config: ConserverConfig;
  /** Producer side of the delivery queue (for `dlqRetry`). */
  queue: JobQueue<DeliveryJob>;
  deadLetters: DeadLetterStore;
  /** The webhook ingress, when the config has a `webhook:` section. */
  webhook?: WebhookIngress;
  close(): Promise<void>;
}

function deliveryQueue(
  config: ConserverConfig,
  o: RunConserverOptions,
  log: Logger,
): JobQueue<DeliveryPayload> {
  const d = config.delivery;
  return createQueue<DeliveryPayload>(d.queue, {
    redisUrl: o.redisUrl,
    prefix: d.prefix,
    attempts: d.attempts,
    backoff: { type: "exponential", delayMs: d.backoffMs, maxDelayMs: d.maxBackoffMs, jitter: 0.5 },
    log,
    ...(o.lockDurationMs ? { lockDurationMs: o.lockDurationMs } : {}),
    ...(o.stalledIntervalMs ? { stalledIntervalMs: o.stalledIntervalMs } : {}),
  });
}

function startWorker(
  config: ConserverConfig,
  o: RunConserverOptions,
  deadLetters: DeadLetterStore,
  log: Logger,
  metrics: ConserverMetrics,
  redis: Redis,
): DeliveryWorker {
  return startDeliveryWorker({
    claims: new RedisDeliveryClaims(redis, `${config.delivery.prefix}:`),
    // The worker owns its queue instance (closing the worker closes it).
    queue: deliveryQueue(config, o, log),
    deadLetters,
    concurrency: config.delivery.concurrency,
    retry: { requestTimeoutMs: config.delivery.requestTimeoutMs, ...o.retry },
    log,
    metrics,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
}

function startLinks(
  config: ConserverConfig,
  o: RunConserverOptions,
  deps: {
    redis: Redis;
    store: RedisVconStore;
    queue: JobQueue<DeliveryJob>;
    links: Map<string, ResolvedLink>;
    log: Logger;
    metrics: ConserverMetrics;
  },
): LinkRuntime {
  const vconKeyPrefix = o.vconKeyPrefix ?? "vcon:";
  const ctx: LinkContext = {
    store: deps.store,
    log: deps.log,
    defaultHashMode: o.defaultHashMode ?? "python-json-normalized",
    deliveryQueue: deps.queue,
    consent: new ClientConsentSource(o.fetch),
    ...(o.scitt ? { scitt: o.scitt } : {}),
  };
  return startLinkRuntime({
    redisUrl: o.redisUrl,
    redis: deps.redis,
    chains: Object.values(config.chains),
    links: deps.links,
    ctx,
    metrics: deps.metrics,
    vconKeyPrefix,
    concurrency: o.linkConcurrency ?? 1,
    ...(o.popTimeoutS ? { popTimeoutS: o.popTimeoutS } : {}),
  });
}

/** The `webhook:` ingress: received vCons are stored and queued on the chain's first ingress list. */
function startWebhook(
  config: ConserverConfig,
  redis: Redis,
  store: RedisVconStore,
  log: Logger,
): Promise<WebhookIngress> {
  const w = config.webhook as NonNullable<ConserverConfig["webhook"]>;
  const chain = config.chains[w.chain] as ConserverConfig["chains"][string];
  return startWebhookIngress({
    host: w.host,
    port: w.port,
    path: w.path,
    headerName: w.header,
    limitBytes: w.limitBytes,
    ...(w.token ? { token: w.token } : {}),
    accept: queueAcceptor(store, redis, chain.ingressLists[0] as string),
    log,
  });
}

/**
 * Connects once to Redis and lets go: a Redis that is down is one clear error at start, not a
 * stream of reconnection errors from every client the runtime would open.
 */
async function probeRedis(url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The socket's own error (ECONNREFUSED, ENOTFOUND) says more than the client's "closed".
  let cause: NodeJS.ErrnoException | undefined;
  probe.on("error", (err: NodeJS.ErrnoException) => {
    cause ??= err;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    const e = cause ?? (err as NodeJS.ErrnoException);
    throw new ConserverError(
      "REDIS_UNREACHABLE",
      `Redis at ${url} is not reachable (${e.code ?? e.message}): start it, or name another with --redis-url, redis_url in the config, or REDIS_URL`,
    );
  } finally {
    probe.disconnect();
  }
}

/** `archivist conserver run --config conserver.yml`: the link runtime and the delivery worker on one Redis. */
export async function runConserver(configPath: string, o: RunConserverOptions): Promise<RunningConserver> {
  const log = o.log ?? pino({ name: "conserver" });
  const config = loadConfig(configPath);
  if (config.ignored.length) log.warn({ keys: config.ignored }, "config keys not used by this runtime");
  const links = await resolveLinks(config);
  const metrics = o.metrics ?? conserverMetrics();
  await probeRedis(o.redisUrl);
  const redis = new Redis(o.redisUrl, { enableAutoPipelining: true });
  redis.on("error", (err) => log.debug({ err }, "conserver redis error"));
  // One store for the webhook and the links: each store finds out once whether RedisJSON is
  // loaded, and says so; two said it twice per start (issue 74).
  const store = new RedisVconStore(redis, { log, keyPrefix: o.vconKeyPrefix ?? "vcon:" });
  // The webhook first: a port in use is fatal, and nothing else has started yet to keep running.
  let webhook: WebhookIngress | undefined;
  try {
    webhook = config.webhook ? await startWebhook(config, redis, store, log) : undefined;
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const deadLetters = new RedisDeadLetterStore(
    redis,
    deadLetterKey(config.delivery.prefix, config.delivery.queue),
  );
  // Links queue through it: deliveries queued at the same moment share one job.
  const queue = new BatchingDeliveryQueue(deliveryQueue(config, o, log));
  const worker = o.deliver === false ? undefined : startWorker(config, o, deadLetters, log, metrics, redis);
  const runtime =
    o.links === false ? undefined : startLinks(config, o, { redis, store, queue, links, log, metrics });
  log.info({ chains: Object.keys(config.chains), deliver: worker !== undefined }, "conserver running");
  return {
    config,
    queue,
    deadLetters,
    ...(webhook ? { webhook } : {}),
    async close() {
      await webhook?.close();
      await runtime?.close();
      await worker?.close();
      await queue.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
