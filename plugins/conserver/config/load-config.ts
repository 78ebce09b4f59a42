import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { ConserverError } from "../errors.js";
import { isRecord } from "../vcon.js";
import { parseDelivery } from "./delivery-section.js";
import { expandEnv } from "./expand-env.js";
import type { ChainConfig, ConserverConfig, DeliveryConfig, LinkConfig } from "./types.js";
import { parseWebhook } from "./webhook-section.js";

const KNOWN = new Set(["links", "chains", "delivery", "webhook", "redis_url"]);

function invalid(key: string, what: string): never {
  throw new ConserverError("CONFIG_INVALID", `${key}: ${what}`, { key });
}

function strings(v: unknown, key: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) invalid(key, "must be a list of names");
  return v.map((item, i) => {
    if (typeof item !== "string" || item === "") invalid(`${key}[${i}]`, "must be a non-empty string");
    return item;
  });
}

function parseLink(name: string, v: unknown): LinkConfig {
  const key = `links.${name}`;
  if (!isRecord(v)) invalid(key, "must be a mapping with module and options");
  if (typeof v.module !== "string" || v.module === "")
    invalid(`${key}.module`, "is required (a module name)");
  if (v.options !== undefined && v.options !== null && !isRecord(v.options))
    invalid(`${key}.options`, "must be a mapping");
  return { name, module: v.module, options: isRecord(v.options) ? v.options : null };
}

/** `enabled:` as the Python conserver writes it (absent, true, 1 or "1"); anything else skips the chain. */
const chainEnabled = (v: unknown) => v === undefined || v === true || v === 1 || v === "1";

function parseChain(name: string, v: unknown, links: Record<string, LinkConfig>): ChainConfig {
  const key = `chains.${name}`;
  if (!isRecord(v)) invalid(key, "must be a mapping with links and ingress_lists");
  const chainLinks = strings(v.links, `${key}.links`);
  chainLinks.forEach((l, i) => {
    if (!links[l]) invalid(`${key}.links[${i}]`, `no link named ${l} under links`);
  });
  const ingressLists = strings(v.ingress_lists, `${key}.ingress_lists`);
  if (ingressLists.length === 0) invalid(`${key}.ingress_lists`, "needs at least one list");
  const enabled = chainEnabled(v.enabled);
  return {
    name,
    links: chainLinks,
    ingressLists,
    egressLists: strings(v.egress_lists, `${key}.egress_lists`),
    enabled,
  };
}

function section(doc: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = doc[key];
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) invalid(key, "must be a mapping");
  return v;
}

/** `redis_url:` (ours): the Redis the conserver runs on, so its operator commands read the same one. */
function parseRedisUrl(v: unknown): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || !/^rediss?:\/\/\S+$/.test(v))
    invalid("redis_url", "must be a redis:// or rediss:// URL");
  return v;
}

/** Validates a conserver config (the vcon-server YAML format plus our `delivery:` section). */
export function parseConfig(
  text: string,
  baseDir = ".",
  env: NodeJS.ProcessEnv = process.env,
): ConserverConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConserverError("CONFIG_INVALID", `config is not valid YAML: ${(err as Error).message}`);
  }
  if (!isRecord(raw)) invalid("config", "must be a mapping");
  const doc = expandEnv(raw, env) as Record<string, unknown>;
  const links: Record<string, LinkConfig> = {};
  for (const [name, v] of Object.entries(section(doc, "links"))) links[name] = parseLink(name, v);
  const chains: Record<string, ChainConfig> = {};
  for (const [name, v] of Object.entries(section(doc, "chains"))) chains[name] = parseChain(name, v, links);
  if (Object.keys(chains).length === 0) invalid("chains", "at least one chain is required");
  const webhook = parseWebhook(doc.webhook === undefined ? undefined : section(doc, "webhook"), chains);
  const redisUrl = parseRedisUrl(doc.redis_url);
  return {
    links,
    chains,
    delivery: parseDelivery(section(doc, "delivery")),
    ...(webhook ? { webhook } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    baseDir,
    ignored: Object.keys(doc).filter((k) => !KNOWN.has(k)),
  };
}

/** Reads and validates a conserver config file. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): ConserverConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConserverError("CONFIG_INVALID", `cannot read config ${path}: ${(err as Error).message}`);
  }
  return parseConfig(text, dirname(resolve(path)), env);
}

/** What the operator commands (`dlq list`, `dlq retry`) need of a config: no link secrets. */
export interface OperatorSection {
  delivery: DeliveryConfig;
  /** `redis_url:`, when the config names one. */
  redisUrl?: string;
  /** The ingress lists of the enabled chains (where the link runtime's `DLQ:<list>` lists are). */
  ingressLists: string[];
}

/**
 * The `delivery:` section, `redis_url:` and the chains' ingress lists of a config file, their
 * variables expanded alone: the links' secrets are not asked for.
 */
export function loadOperatorSection(path: string, env: NodeJS.ProcessEnv = process.env): OperatorSection {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ConserverError("CONFIG_INVALID", `cannot read config ${path}: ${(err as Error).message}`);
  }
  if (!isRecord(raw)) invalid("config", "must be a mapping");
  const delivery = expandEnv(section(raw, "delivery"), env, "delivery") as Record<string, unknown>;
  const redisUrl = parseRedisUrl(expandEnv(raw.redis_url, env, "redis_url"));
  const ingressLists: string[] = [];
  for (const [name, chain] of Object.entries(section(raw, "chains"))) {
    if (!isRecord(chain) || !chainEnabled(chain.enabled)) continue;
    const lists = expandEnv(chain.ingress_lists, env, `chains.${name}.ingress_lists`);
    for (const l of strings(lists, `chains.${name}.ingress_lists`))
      if (!ingressLists.includes(l)) ingressLists.push(l);
  }
  return { delivery: parseDelivery(delivery), ...(redisUrl ? { redisUrl } : {}), ingressLists };
}
