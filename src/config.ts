import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CodedError } from "./formats/coded-error.js";
import { isUuid } from "./formats/ids.js";
import { parseWitnessList, type WitnessEntry } from "./formats/tlog/witness-list.js";

/** Every setting of the service, from the environment and `archivist serve` flags. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** BASE_URL, when set; otherwise the service is reached where it listens (`effectiveBaseUrl`). */
  readonly baseUrl: string | undefined;
  readonly dataDir: string;
  /**
   * The key directory (ARCHIVIST_KEY_DIR; `<DATA_DIR>/keys` by default): the keys' files and the
   * newest checkpoint each log signed, outside the database (docs/keys.md).
   */
  readonly keyDir: string;
  /** Where new signing keys are made (ARCHIVIST_KEY_BACKEND): the key directory, or a PKCS#11 token. */
  readonly keyBackend: "directory" | "pkcs11";
  /** The PKCS#11 module, token and user PIN (ARCHIVIST_PKCS11_MODULE, _TOKEN, _PIN or _PIN_FILE). */
  readonly pkcs11: { module: string; token: string; pin: string } | undefined;
  /** How often every process re-reads the key directory's rotation mark (ARCHIVIST_KEY_RELOAD_MS). */
  readonly keyReloadMs: number;
  readonly databaseUrl: string | undefined;
  /**
   * A streaming replica of DATABASE_URL for the reads that may lag (DATABASE_READ_URL): lists,
   * searches, counts, proofs and tiles, never less than the primary would answer (store/replication/replica-reads.ts).
   */
  readonly databaseReadUrl: string | undefined;
  /** How long such a read waits for the replica to replay what the primary has before the primary answers it. */
  readonly readWaitMs: number;
  /**
   * The standby an operator would promote if the primary were lost (DATABASE_STANDBY_URL; it may
   * name the same server as DATABASE_READ_URL, which is not taken for it): with one set, nothing
   * is signed before the standby has applied it, and a write is answered only once it has
   * (store/replication/standby.ts, docs/scaling.md "Failover").
   */
  readonly databaseStandbyUrl: string | undefined;
  /** How long a write's answer waits for the standby to apply it before it is answered 503 (ARCHIVIST_STANDBY_WAIT_MS). */
  readonly standbyWaitMs: number;
  /** ARCHIVIST_TRANSACTION_GUARD: on, off, or unset (the engine's default: store/drivers/open.ts). */
  readonly transactionGuard: boolean | undefined;
  readonly redisUrl: string | undefined;
  /**
   * etcd endpoints (ARCHIVIST_ETCD_ENDPOINTS, comma-separated) holding each log's head: a signature
   * is made only once the head moved from the last signed state to the new one, so two services on
   * two databases of one log never sign two heads (keys/etcd-heads.ts, docs/scaling.md). Unset, the
   * key directory's signed state is the only record (one machine).
   */
  readonly etcdEndpoints: string[];
  /** The key prefix this deployment's heads live under in etcd (ARCHIVIST_ETCD_PREFIX): one per deployment of a log. */
  readonly etcdPrefix: string;
  readonly bootstrapFile: string | undefined;
  readonly commitMaxDelayMs: number;
  readonly sealIntervalMs: number;
  readonly anchorIntervalMs: number;
  readonly scanIntervalMs: number;
  /** How often revocations are looked for and notices to processors sent (docs/vcon-lifecycle.md, §2). */
  readonly noticeIntervalMs: number;
  /** The first retry's delay of a notice not acknowledged; it doubles, to at most an hour. */
  readonly noticeRetryBaseMs: number;
  /**
   * How often the embedded engine's stale tables are analysed (PGlite has no autovacuum:
   * store/drivers/statistics.ts); 0 never. PostgreSQL's own autovacuum does it there.
   */
  readonly statisticsIntervalMs: number;
  /**
   * Whether processors' webhooks may be loopback, private, link-local or metadata addresses
   * (`ARCHIVIST_WEBHOOK_PRIVATE=allow`; refused by default, docs/vcon-lifecycle.md, §2).
   */
  readonly webhookPrivate: boolean;
  readonly rateLimitRps: number | undefined;
  readonly logLevel: string;
  readonly workers: boolean;
  readonly blobMaxBytes: number;
  readonly blobStore: "fs" | "postgres" | "s3";
  readonly s3:
    | { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string }
    | undefined;
  readonly clamdSocket: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly resultLimit: number;
  /** SCITT: a tenancy whose log takes statements registered by signature alone on `/entries` (the service-level public log). */
  readonly scittPublicLog: string | undefined;
  /** SCRAPI: the receipt profile `/entries` answers when the request names none (the transparency configuration says it). */
  readonly scrapiReceiptProfile: "rfc9162" | "mmr";
  /** SCRAPI: how long a registration waits for its receipt before answering it is pending. */
  readonly scrapiWaitMs: number;
  /** SCRAPI: a pending registration's status, 202 then 204 while polling (draft -11), or 303/302 for clients of older drafts. */
  readonly scrapiPendingStatus: 202 | 303;
  /** C2SP witnesses each new checkpoint is submitted to (ARCHIVIST_WITNESSES). */
  readonly witnesses: readonly WitnessEntry[];
  /** Cosignatures a checkpoint needs for its records to be UNEQUIVOCAL (0: no witnessing). */
  readonly witnessQuorum: number;
  /** Deadline for a request's headers, from the connection's first byte (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
  /** Deadline for reading a request body, from its first byte; 408 past it. */
  readonly bodyTimeoutMs: number;
  /** Deadline for receiving a whole request, headers and body (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  /**
   * Proxies whose X-Forwarded-For is believed (addresses or CIDRs, ARCHIVIST_TRUSTED_PROXIES):
   * the per-address limits then count the client's address, not the proxy's. None by default.
   */
  readonly trustedProxies: readonly string[];
  /** The bearer token `/metrics` asks for (ARCHIVIST_METRICS_TOKEN); unset, `/metrics` is off. */
  readonly metricsToken: string | undefined;
  /** Evidence bundles built at once for one tenancy (ARCHIVIST_EXPORTS_PER_TENANCY); more are answered 429. */
  readonly exportsPerTenancy: number;
  /**
   * SIGTERM to exit, at most: requests in flight get part of it, then the workers hand back their
   * work; past it the process exits anyway (the database still holds every accepted record).
   */
  readonly shutdownTimeoutMs: number;
  /** Entries after which a log's period closes (ARCHIVIST_LOG_PERIOD_ENTRIES; 0: never by size). */
  readonly logPeriodEntries: number;
  /** Age after which a log's period closes (ARCHIVIST_LOG_PERIOD_AGE_MS; 0: never by age). */
  readonly logPeriodAgeMs: number;
}

export class ConfigError extends CodedError<"CONFIG"> {
  readonly code = "CONFIG";
}

type Env = Record<string, string | undefined>;

// Each reader takes the merged settings and the variable's name, so an error names the variable.
function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0)
    throw new ConfigError(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

function oneOf<T extends string>(e: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = e[name];
  if (raw === undefined || raw === "") return fallback;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
}

/** `on` or `off`; unset or empty leaves the choice to the component (undefined). */
function onOff(e: Env, name: string): boolean | undefined {
  if (e[name] === undefined || e[name] === "") return undefined;
  return oneOf(e, name, ["on", "off"] as const, "on") === "on";
}

function uuidOf(e: Env, name: string): string | undefined {
  const raw = e[name];
  if (raw === undefined || raw === "") return undefined;
  if (!isUuid(raw)) throw new ConfigError(`${name} must be a tenancy uuid, got "${raw}"`);
  return raw.toLowerCase();
}

/** The key directory: ARCHIVIST_KEY_DIR, else `keys` under the data directory. */
function keyDirOf(e: Env, dataDir: string): string {
  return e.ARCHIVIST_KEY_DIR ? resolve(e.ARCHIVIST_KEY_DIR) : resolve(dataDir, "keys");
}

function pkcs11Of(e: Env, backend: Config["keyBackend"]): Config["pkcs11"] {
  if (backend !== "pkcs11") return undefined;
  const module = e.ARCHIVIST_PKCS11_MODULE;
  const token = e.ARCHIVIST_PKCS11_TOKEN;
  let pin = e.ARCHIVIST_PKCS11_PIN;
  if (!pin && e.ARCHIVIST_PKCS11_PIN_FILE) {
    try {
      pin = readFileSync(e.ARCHIVIST_PKCS11_PIN_FILE, "utf8").trim();
    } catch (err) {
      throw new ConfigError(`ARCHIVIST_PKCS11_PIN_FILE cannot be read: ${(err as Error).message}`);
    }
  }
  if (!module || !token || !pin)
    throw new ConfigError(
      "ARCHIVIST_KEY_BACKEND=pkcs11 needs ARCHIVIST_PKCS11_MODULE (the library), ARCHIVIST_PKCS11_TOKEN (its label) and ARCHIVIST_PKCS11_PIN or ARCHIVIST_PKCS11_PIN_FILE",
    );
  return { module, token, pin };
}

function blobStoreOf(raw: string | undefined): Config["blobStore"] {
  if (raw === undefined || raw === "" || raw === "fs") return "fs";
  if (raw === "postgres" || raw === "s3") return raw;
  throw new ConfigError(`ARCHIVIST_BLOB_STORE must be fs, postgres or s3, got "${raw}"`);
}

function s3Of(env: Env, store: string | undefined): Config["s3"] {
  const endpoint = env.ARCHIVIST_S3_ENDPOINT;
  if (!endpoint) {
    if (store === "s3")
      throw new ConfigError(
        "ARCHIVIST_BLOB_STORE=s3 needs ARCHIVIST_S3_ENDPOINT (and _BUCKET, _REGION, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY)",
      );
    return undefined;
  }
  return {
    endpoint,
    bucket: env.ARCHIVIST_S3_BUCKET ?? "archivist-blobs",
    region: env.ARCHIVIST_S3_REGION ?? "us-east-1",
    accessKeyId: env.ARCHIVIST_S3_ACCESS_KEY_ID ?? "",
    secretAccessKey: env.ARCHIVIST_S3_SECRET_ACCESS_KEY ?? "",
  };
}

function witnessesOf(e: Env): Pick<Config, "witnesses" | "witnessQuorum"> {
  let witnesses: WitnessEntry[];
  try {
    witnesses = parseWitnessList(e.ARCHIVIST_WITNESSES ?? "");
  } catch (err) {
    throw new ConfigError(`ARCHIVIST_WITNESSES: ${(err as Error).message}`);
  }
  const quorum = int(e, "ARCHIVIST_WITNESS_QUORUM", witnesses.length);
  if (!Number.isInteger(quorum) || quorum > witnesses.length)
    throw new ConfigError(
      `ARCHIVIST_WITNESS_QUORUM must be a whole number up to the ${witnesses.length} witnesses`,
    );
  if (witnesses.length > 0 && quorum === 0)
    throw new ConfigError("ARCHIVIST_WITNESS_QUORUM must be at least 1 when witnesses are configured");
  return { witnesses, witnessQuorum: quorum };
}

/**
 * The URL the service is reached at: BASE_URL, or the address it listens on (`port`: the one
 * bound, which PORT=0 leaves to the system). Derived once where the service starts.
 */
export function effectiveBaseUrl(config: Pick<Config, "baseUrl" | "host">, port: number): string {
  return config.baseUrl ?? `http://${config.host}:${port}`;
}

/** Builds the typed config; flags (already mapped to variable names) win over the environment. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Record<string, string | undefined> = {},
): Config {
  const e = { ...env, ...overrides };
  // Read once: nothing changes a setting after start (the base URL the bound port gives is the context's).
  // Each group is read in the order of its settings, so the first bad one named is the same.
  return Object.freeze({
    ...placeAndStorage(e),
    ...workerSettings(e),
    ...edgeAndLimits(e),
    ...scittSettings(e),
    headersTimeoutMs: int(e, "ARCHIVIST_HEADERS_TIMEOUT_MS", 10_000),
    bodyTimeoutMs: int(e, "ARCHIVIST_BODY_TIMEOUT_MS", 60_000),
    requestTimeoutMs: int(e, "ARCHIVIST_REQUEST_TIMEOUT_MS", 120_000),
    trustedProxies: proxiesOf(e.ARCHIVIST_TRUSTED_PROXIES),
    metricsToken: e.ARCHIVIST_METRICS_TOKEN || undefined,
    exportsPerTenancy: Math.max(1, Math.floor(int(e, "ARCHIVIST_EXPORTS_PER_TENANCY", 2))),
    // Below the 10 s an orchestrator commonly waits after SIGTERM before its SIGKILL (docker stop).
    shutdownTimeoutMs: int(e, "ARCHIVIST_SHUTDOWN_TIMEOUT_MS", 8000),
  });
}

/** Where the service listens and keeps its data: the socket, directories, keys and databases. */
function placeAndStorage(e: Env) {
  const port = int(e, "PORT", 8080);
  const host = e.HOST || "127.0.0.1";
  const dataDir = resolve(e.DATA_DIR || "./data");
  const keyBackend = oneOf(e, "ARCHIVIST_KEY_BACKEND", ["directory", "pkcs11"] as const, "directory");
  return {
    port,
    host,
    baseUrl: e.BASE_URL ? e.BASE_URL.replace(/\/+$/, "") : undefined,
    dataDir,
    keyDir: keyDirOf(e, dataDir),
    keyBackend,
    pkcs11: pkcs11Of(e, keyBackend),
    keyReloadMs: int(e, "ARCHIVIST_KEY_RELOAD_MS", 5000),
    databaseUrl: e.DATABASE_URL || undefined,
    databaseReadUrl: readUrlOf(e),
    readWaitMs: int(e, "ARCHIVIST_READ_WAIT_MS", 50),
    databaseStandbyUrl: standbyUrlOf(e),
    standbyWaitMs: int(e, "ARCHIVIST_STANDBY_WAIT_MS", 5000),
    transactionGuard: onOff(e, "ARCHIVIST_TRANSACTION_GUARD"),
    redisUrl: e.REDIS_URL || undefined,
    etcdEndpoints: (e.ARCHIVIST_ETCD_ENDPOINTS ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== ""),
    etcdPrefix: e.ARCHIVIST_ETCD_PREFIX || "/vcon-archivist/",
    bootstrapFile: e.ARCHIVIST_BOOTSTRAP_FILE || undefined,
  };
}

/** The workers' pace: commits, seals, log periods, anchors, scans and notices. */
function workerSettings(e: Env) {
  return {
    commitMaxDelayMs: int(e, "ARCHIVIST_COMMIT_MAX_DELAY_MS", 250),
    sealIntervalMs: int(e, "ARCHIVIST_SEAL_INTERVAL_MS", 1000),
    logPeriodEntries: int(e, "ARCHIVIST_LOG_PERIOD_ENTRIES", 0),
    logPeriodAgeMs: int(e, "ARCHIVIST_LOG_PERIOD_AGE_MS", 0),
    anchorIntervalMs: int(e, "ARCHIVIST_ANCHOR_INTERVAL_MS", 10_000),
    scanIntervalMs: int(e, "ARCHIVIST_SCAN_INTERVAL_MS", 86_400_000),
    noticeIntervalMs: int(e, "ARCHIVIST_NOTICE_INTERVAL_MS", 5000),
    noticeRetryBaseMs: int(e, "ARCHIVIST_NOTICE_RETRY_BASE_MS", 5000),
    statisticsIntervalMs: int(e, "ARCHIVIST_STATISTICS_INTERVAL_MS", 60_000),
    webhookPrivate: oneOf(e, "ARCHIVIST_WEBHOOK_PRIVATE", ["refuse", "allow"] as const, "refuse") === "allow",
  };
}

/** The edge's limits and the blobs' store: rate, log level, sizes, scanner, mail, results. */
function edgeAndLimits(e: Env) {
  const rps = e.ARCHIVIST_RATE_LIMIT_RPS;
  return {
    rateLimitRps: rps ? int(e, "ARCHIVIST_RATE_LIMIT_RPS", 0) || undefined : undefined,
    logLevel: e.LOG_LEVEL || "info",
    workers: e.ARCHIVIST_NO_WORKERS !== "true",
    blobMaxBytes: int(e, "ARCHIVIST_BLOB_MAX_BYTES", 100 * 1024 * 1024),
    blobStore: blobStoreOf(e.ARCHIVIST_BLOB_STORE),
    s3: s3Of(e, e.ARCHIVIST_BLOB_STORE),
    clamdSocket: e.ARCHIVIST_CLAMD_SOCKET || undefined,
    smtpUrl: e.ARCHIVIST_SMTP_URL || undefined,
    resultLimit: int(e, "ARCHIVIST_RESULT_LIMIT", 10_000),
  };
}

/** SCITT's public log and SCRAPI's answers, and the witnesses the checkpoints go to. */
function scittSettings(e: Env) {
  return {
    scittPublicLog: uuidOf(e, "ARCHIVIST_SCITT_PUBLIC_LOG"),
    scrapiReceiptProfile: oneOf(
      e,
      "ARCHIVIST_SCRAPI_RECEIPT_PROFILE",
      ["rfc9162", "mmr"] as const,
      "rfc9162",
    ),
    scrapiWaitMs: int(e, "ARCHIVIST_SCRAPI_WAIT_MS", 3000),
    scrapiPendingStatus: Number(
      oneOf(e, "ARCHIVIST_SCRAPI_PENDING_STATUS", ["202", "303"] as const, "202"),
    ) as 202 | 303,
    ...witnessesOf(e),
  };
}

/** A replica needs its primary: the embedded database has none. */
function readUrlOf(e: Env): string | undefined {
  const url = e.DATABASE_READ_URL || undefined;
  if (url && !e.DATABASE_URL)
    throw new ConfigError("DATABASE_READ_URL names a replica of DATABASE_URL, which is not set");
  return url;
}

/** A standby is the primary's: the embedded database has none. */
function standbyUrlOf(e: Env): string | undefined {
  const url = e.DATABASE_STANDBY_URL || undefined;
  if (url && !e.DATABASE_URL)
    throw new ConfigError("DATABASE_STANDBY_URL names a standby of DATABASE_URL, which is not set");
  return url;
}

// An address (IPv4, IPv6) with an optional prefix length: what Fastify's trustProxy takes.
const PROXY = /^(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(?:\/[0-9]{1,3})?$/;

function proxiesOf(raw: string | undefined): string[] {
  const list = (raw ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const bad = list.find((p) => !PROXY.test(p) && !["loopback", "linklocal", "uniquelocal"].includes(p));
  if (bad !== undefined)
    throw new ConfigError(
      `ARCHIVIST_TRUSTED_PROXIES must be addresses or CIDRs (or loopback, linklocal, uniquelocal), separated by commas; got "${bad}"`,
    );
  return list;
}
