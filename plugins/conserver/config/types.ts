/** One entry of `links:`. */
export interface LinkConfig {
  name: string;
  module: string;
  /** null when the entry has no `options:` (the Python conserver passes None then). */
  options: Record<string, unknown> | null;
}

/** One entry of `chains:`. */
export interface ChainConfig {
  name: string;
  links: string[];
  ingressLists: string[];
  egressLists: string[];
  /** `enabled: 0` chains are skipped (declared but ignored by the Python conserver). */
  enabled: boolean;
}

/** The `delivery:` section (ours; the Python format has none): queue and retry settings. */
export interface DeliveryConfig {
  queue: string;
  /** Redis key prefix of the queue and the dead-letter store. */
  prefix: string;
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  /** Deliveries the worker runs at once, whatever queue jobs (single or batches) they came in. */
  concurrency: number;
  requestTimeoutMs: number;
}

/** The `webhook:` section (ours): an HTTP ingress for vcon-server's `webhook` link. */
export interface WebhookConfig {
  host: string;
  port: number;
  path: string;
  /** Shared token the sender puts in `header` (the webhook link's `headers` option); none: open. */
  token?: string;
  header: string;
  /** The chain whose first ingress list received vCons are queued on. */
  chain: string;
  limitBytes: number;
}

/** A conserver config file, validated. */
export interface ConserverConfig {
  links: Record<string, LinkConfig>;
  chains: Record<string, ChainConfig>;
  delivery: DeliveryConfig;
  webhook?: WebhookConfig;
  /** `redis_url:` (ours): the Redis of the lists, the queue and the dead letters, when the file names one. */
  redisUrl?: string;
  /** Folder of the config file (link module paths are relative to it). */
  baseDir: string;
  /** Keys understood by the Python conserver but not here (storages, followers, ...), for a log line. */
  ignored: string[];
}
