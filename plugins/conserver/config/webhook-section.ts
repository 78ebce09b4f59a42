import { ConserverError } from "../errors.js";
import type { ChainConfig, WebhookConfig } from "./types.js";

function invalid(key: string, what: string): never {
  throw new ConserverError("CONFIG_INVALID", `webhook.${key}: ${what}`, { key: `webhook.${key}` });
}

function text(s: Record<string, unknown>, key: string): string | undefined {
  const v = s[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || v === "") invalid(key, "must be a non-empty string");
  return v;
}

/** The webhook ingress's default port (a witness's is 8091: the README runs both at once). */
export const WEBHOOK_DEFAULT_PORT = 8090;

/** `listen: host:port` (or `:port`, or a bare port); IPv6 hosts in brackets. */
function listenOf(v: string | number | undefined): { host: string; port: number } {
  if (v === undefined) return { host: "127.0.0.1", port: WEBHOOK_DEFAULT_PORT };
  const raw = String(v);
  const m = /^(?:(\[[^\]]+\]|[^:]*):)?(\d+)$/.exec(raw);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) invalid("listen", "must be host:port");
  const host = (m[1] ?? "").replace(/^\[|\]$/g, "") || "127.0.0.1";
  return { host, port };
}

/**
 * The `webhook:` section, when present: where to listen, the path, the shared token and the
 * chain whose ingress list takes the vCons (default: the first enabled chain). Errors name the key.
 */
export function parseWebhook(
  s: Record<string, unknown> | undefined,
  chains: Record<string, ChainConfig>,
): WebhookConfig | undefined {
  if (s === undefined) return undefined;
  const listen = s.listen;
  if (listen !== undefined && typeof listen !== "string" && typeof listen !== "number")
    invalid("listen", "must be host:port");
  const path = text(s, "path") ?? "/vcon";
  if (!path.startsWith("/")) invalid("path", "must start with /");
  const chain = text(s, "chain") ?? Object.values(chains).find((c) => c.enabled)?.name;
  if (!chain || !chains[chain]) invalid("chain", `no chain named ${chain ?? "(none enabled)"}`);
  const limit = s.limit_bytes ?? 10 * 1024 * 1024;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)
    invalid("limit_bytes", "must be a whole number >= 1");
  const token = text(s, "token");
  return {
    ...listenOf(listen as string | number | undefined),
    path,
    ...(token ? { token } : {}),
    header: text(s, "header") ?? "x-conserver-api-token",
    chain,
    limitBytes: limit,
  };
}
