import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { USAGE_EXIT_CODE } from "../../src/verify/index.js";
import { DELIVERY_DEFAULTS } from "./config/delivery-section.js";
import { loadOperatorSection, type OperatorSection } from "./config/load-config.js";
import { chooseRedis, describeRedis, type RedisChoice } from "./config/redis-source.js";
import { dlqList, dlqRetry } from "./dead-letters/delivery-redrive.js";
import { deadLetterKey, RedisDeadLetterStore } from "./dead-letters/delivery-store.js";
import {
  ingressDlqKey,
  ingressDlqList,
  ingressDlqReasons,
  ingressDlqRetry,
  ingressDlqSize,
} from "./dead-letters/ingress-list.js";
import type { DeliveryJob } from "./delivery/job.js";
import { scittFromEnv } from "./links/scitt-env.js";
import { createQueue } from "./queue/factory.js";
import { runConserver } from "./runtime/run-conserver.js";

/** Where the CLI writes (injectable so tests can read it). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM by default). */
  stopped?: Promise<string>;
}

const RUN_LINE =
  "  run --config <file> [--redis-url <url>] [--vcon-concurrency <n>] [--links-only | --deliver-only]\n";
const DLQ_LINES = `  dlq list  [--config <file>] [--redis-url <url>] [--limit <n>] [--json]
  dlq retry [--config <file>] [--redis-url <url>] [id ...]   (no id: every entry)
  dlq list  --ingress <list> [--redis-url <url>] [--limit <n>] [--json]   (the link runtime's DLQ:<list>)
  dlq retry --ingress <list> [--redis-url <url>] [--limit <n>] [uuid ...] (back onto <list>)
`;
const REDIS_NOTE = `Redis URL: --redis-url, else the config's redis_url, else REDIS_URL, else redis://127.0.0.1:6379
(run and dlq with the same --config read the same Redis; each answer names the one it used).
`;
const RUN_NOTES = `vCons the link runtime runs at once: --vcon-concurrency, else CONSERVER_VCON_CONCURRENCY, else 1
(deliveries the links queue at the same moment share one queue job: more at once, fewer jobs).
scitt links: CONSERVER_SCITT_KEY_FILE (EC P-256 PEM), _KID, _ISSUER, _URL, _CLIENT_ID, _CLIENT_SECRET.
`;
const USAGE = `usage: archivist conserver <command>\n${RUN_LINE}${DLQ_LINES}${REDIS_NOTE}${RUN_NOTES}`;
/** Each subcommand's own help: what it takes, not the other's. */
const RUN_USAGE = `usage: archivist conserver run: the links and their deliveries, until SIGINT/SIGTERM
${RUN_LINE}  --links-only: the link runtime alone; --deliver-only: the delivery workers alone
${REDIS_NOTE}${RUN_NOTES}`;
const DLQ_USAGE = `usage: archivist conserver dlq: the dead letters, listed or retried
${DLQ_LINES}${REDIS_NOTE}`;

const STOP_GRACE_MS = 10_000;

const OPTIONS = {
  config: { type: "string" },
  "redis-url": { type: "string" },
  limit: { type: "string" },
  ingress: { type: "string" },
  json: { type: "boolean" },
  "links-only": { type: "boolean" },
  "deliver-only": { type: "boolean" },
  "vcon-concurrency": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parse>["values"];

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

function signalled(): Promise<string> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
}

// The DLQ commands need no link secret: the config's `delivery:` section, `redis_url:` and
// ingress lists, or the defaults.
function operatorOf(v: Values): OperatorSection | undefined {
  return v.config ? loadOperatorSection(v.config) : undefined;
}

function redisOf(v: Values, section: OperatorSection | undefined): RedisChoice {
  return chooseRedis(v["redis-url"], v.config ? { path: v.config, redisUrl: section?.redisUrl } : undefined);
}

/** "redis://127.0.0.1:6379 db 0 (from REDIS_URL)": where an answer was read. */
const where = (r: RedisChoice) => `${describeRedis(r.url)} (from ${r.from})`;

async function runCommand(v: Values, io: CliIo): Promise<number> {
  if (!v.config) {
    io.err(`conserver run: --config <file> is required\n${USAGE}`);
    return USAGE_EXIT_CODE;
  }
  const scitt = scittFromEnv();
  const linkConcurrency = vconConcurrencyOf(v["vcon-concurrency"]);
  const section = operatorOf(v);
  const redis = redisOf(v, section);
  const running = await runConserver(v.config, {
    redisUrl: redis.url,
    ...(linkConcurrency ? { linkConcurrency } : {}),
    ...(scitt ? { scitt } : {}),
    ...(v["links-only"] ? { deliver: false } : {}),
    ...(v["deliver-only"] ? { links: false } : {}),
  });
  const d = running.config.delivery;
  io.err(
    `conserver: on ${where(redis)}; dead letters in ${deadLetterKey(d.prefix, d.queue)}` +
      `${section?.ingressLists.length ? ` and ${section.ingressLists.map(ingressDlqKey).join(", ")}` : ""}` +
      ` (archivist conserver dlq list --config ${v.config})\n`,
  );
  const signal = await (io.stopped ?? signalled());
  io.err(`conserver: ${signal}, stopping\n`);
  // Work in hand gets its time to finish; a Redis gone away must not hold the process forever.
  const closed = await Promise.race([
    running.close().then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref()),
  ]);
  if (!closed) io.err(`conserver: not stopped cleanly within ${STOP_GRACE_MS / 1000} s, exiting\n`);
  return closed ? 0 : 1;
}

function wholeAtLeastOne(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: must be a whole number >= 1, not ${value}`);
  return n;
}

function limitOf(v: Values): number | undefined {
  return v.limit === undefined ? undefined : wholeAtLeastOne("--limit", v.limit);
}

/** vcon-server's CONSERVER_VCON_CONCURRENCY, which a flag overrides; undefined: the runtime's default (1). */
export function vconConcurrencyOf(
  flag: string | undefined,
  env: string | undefined = process.env.CONSERVER_VCON_CONCURRENCY,
): number | undefined {
  if (flag !== undefined) return wholeAtLeastOne("--vcon-concurrency", flag);
  if (env === undefined || env === "") return undefined;
  return wholeAtLeastOne("CONSERVER_VCON_CONCURRENCY", env);
}

async function withRedis<R>(choice: RedisChoice, fn: (redis: Redis) => Promise<R>): Promise<R> {
  // One attempt, no reconnect storm: an operator command should fail fast when Redis is down.
  const redis = new Redis(choice.url, {
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  let cause: NodeJS.ErrnoException | undefined;
  redis.on("error", (err: NodeJS.ErrnoException) => {
    cause ??= err;
  });
  try {
    try {
      await redis.connect();
    } catch (err) {
      const e = cause ?? (err as NodeJS.ErrnoException);
      throw new Error(
        `Redis at ${choice.url} (from ${choice.from}) is not reachable (${e.code ?? e.message}): start it, or name another with --redis-url, redis_url in the config, or REDIS_URL`,
      );
    }
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

async function ingressListCommand(v: Values, list: string, io: CliIo): Promise<number> {
  const redis = redisOf(v, operatorOf(v));
  const [uuids, reasons] = await withRedis(redis, async (r) => {
    const listed = await ingressDlqList(r, list, limitOf(v));
    return [listed, await ingressDlqReasons(r, list, listed)] as const;
  });
  if (v.json) {
    io.out(`${JSON.stringify(uuids)}\n`);
    return 0;
  }
  for (const u of uuids) {
    const r = reasons.get(u);
    io.out(r ? `${u}  ${r.code}: ${r.message} (${r.at})\n` : `${u}\n`);
  }
  io.out(`${uuids.length} vCon(s) in ${ingressDlqKey(list)} on ${where(redis)}\n`);
  return 0;
}

async function ingressRetryCommand(v: Values, list: string, uuids: string[], io: CliIo): Promise<number> {
  const limit = limitOf(v);
  const moved = await withRedis(redisOf(v, operatorOf(v)), (redis) =>
    ingressDlqRetry(redis, list, { uuids, ...(limit ? { limit } : {}) }),
  );
  for (const u of moved) io.out(`re-queued ${u} on ${list}\n`);
  const missing = uuids.filter((u) => !moved.includes(u));
  for (const u of missing) io.err(`not in ${ingressDlqKey(list)}: ${u}\n`);
  io.out(`${moved.length} vCon(s) re-queued\n`);
  return missing.length ? 1 : 0;
}

async function dlqListCommand(v: Values, io: CliIo): Promise<number> {
  if (v.ingress) return ingressListCommand(v, v.ingress, io);
  const limit = limitOf(v);
  const section = operatorOf(v);
  const d = section?.delivery ?? DELIVERY_DEFAULTS;
  const key = deadLetterKey(d.prefix, d.queue);
  const redis = redisOf(v, section);
  const lists = section?.ingressLists ?? [];
  const { entries, ingress } = await withRedis(redis, async (r) => ({
    entries: await dlqList(new RedisDeadLetterStore(r, key), limit ? { limit } : {}),
    ingress: await Promise.all(lists.map(async (l) => [l, await ingressDlqSize(r, l)] as const)),
  }));
  if (v.json) {
    io.out(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  }
  for (const e of entries)
    io.out(`${e.id}\t${e.failedAt}\t${e.status ?? "-"}\tattempts=${e.attempts}\t${e.reason}\n`);
  io.out(`${entries.length} dead-lettered delivery job(s) in ${key} on ${where(redis)}\n`);
  // The link runtime's failures (a vCon its chain could not read) sit in DLQ:<ingress list>.
  for (const [list, n] of ingress)
    io.out(`${n} vCon(s) in ${ingressDlqKey(list)} (list them with --ingress ${list})\n`);
  return 0;
}

async function dlqRetryCommand(v: Values, ids: string[], io: CliIo): Promise<number> {
  if (v.ingress) return ingressRetryCommand(v, v.ingress, ids, io);
  const section = operatorOf(v);
  const d = section?.delivery ?? DELIVERY_DEFAULTS;
  const redis = redisOf(v, section);
  const done = await withRedis(redis, async (r) => {
    const store = new RedisDeadLetterStore(r, deadLetterKey(d.prefix, d.queue));
    const queue = createQueue<DeliveryJob>(d.queue, {
      redisUrl: redis.url,
      prefix: d.prefix,
      attempts: d.attempts,
      backoff: { type: "exponential", delayMs: d.backoffMs, maxDelayMs: d.maxBackoffMs, jitter: 0.5 },
    });
    try {
      return await dlqRetry(store, queue, { ids });
    } finally {
      await queue.close();
    }
  });
  for (const id of done) io.out(`re-queued ${id}\n`);
  const missing = ids.filter((id) => !done.includes(id));
  for (const id of missing) io.err(`not in ${deadLetterKey(d.prefix, d.queue)} on ${where(redis)}: ${id}\n`);
  io.out(`${done.length} job(s) re-queued\n`);
  return missing.length ? 1 : 0;
}

/**
 * `archivist conserver ...`: `run --config <file>` (until SIGINT/SIGTERM), `dlq list`, `dlq retry [id...]`.
 * Returns the exit code (64, USAGE_EXIT_CODE: a usage error, as every archivist command's).
 */
export async function conserverCli(args: string[], io: CliIo = defaultIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
    // Malformed numbers are the command line's fault, found before anything starts.
    limitOf(parsed.values);
    vconConcurrencyOf(parsed.values["vcon-concurrency"]);
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return USAGE_EXIT_CODE;
  }
  const { values: v, positionals: p } = parsed;
  if (v.help) {
    io.out(p[0] === "run" ? RUN_USAGE : p[0] === "dlq" ? DLQ_USAGE : USAGE);
    return 0;
  }
  if (p[0] === "run" && p.length === 1) return runCommand(v, io);
  if (p[0] === "dlq" && p[1] === "list" && p.length === 2) return dlqListCommand(v, io);
  if (p[0] === "dlq" && p[1] === "retry") return dlqRetryCommand(v, p.slice(2), io);
  io.err(USAGE);
  return USAGE_EXIT_CODE;
}
