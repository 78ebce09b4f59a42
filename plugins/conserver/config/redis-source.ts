/** The Redis a conserver command uses, and what named it (said with every answer that depends on it). */
export interface RedisChoice {
  url: string;
  /** `--redis-url`, `redis_url in <config>`, `REDIS_URL`, or `the default`. */
  from: string;
}

const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * `--redis-url`, else the config's `redis_url:`, else REDIS_URL, else the default: the same order
 * for `run` and the dead-letter commands, so one config file names one Redis to both.
 */
export function chooseRedis(
  flag: string | undefined,
  config: { path: string; redisUrl?: string | undefined } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): RedisChoice {
  if (flag) return { url: flag, from: "--redis-url" };
  if (config?.redisUrl) return { url: config.redisUrl, from: `redis_url in ${config.path}` };
  if (env.REDIS_URL) return { url: env.REDIS_URL, from: "REDIS_URL" };
  return { url: DEFAULT_REDIS_URL, from: "the default" };
}

/** `redis://host:port db N` with any password left out: where a list was read, for an operator. */
export function describeRedis(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const db = /^\/(\d+)/.exec(u.pathname)?.[1] ?? "0";
  const user = u.username && u.username !== "default" ? `${decodeURIComponent(u.username)}@` : "";
  return `${u.protocol}//${user}${u.host} db ${db}`;
}
