import { type Answer, call } from "./http.js";
import type { LoadSample } from "./load-spec.js";
import { type Summary, summarize } from "./stats.js";

const COMMITTED = new Set(["COMMITTED", "CONFIRMED", "UNEQUIVOCAL"]);
const CONFIRMED = new Set(["CONFIRMED", "UNEQUIVOCAL"]);

/** Server-side latencies of sampled records: accepted→committed and accepted→confirmed. */
export interface TrustLatency {
  sampled: number;
  committed: Summary;
  confirmed: Summary;
  /** Confirmed records whose answer carried no seal timestamp (so no latency could be taken). */
  confirmedWithoutTime: number;
}

/** Milliseconds of a timestamp the API may give as epoch ms, epoch seconds, or RFC 3339 text. */
export function epochMs(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined;
  if (n !== undefined) return n < 1e12 ? n * 1000 : n;
  if (typeof v !== "string" || v === "") return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

interface Probe {
  path: string;
  committedMs?: number;
  confirmedMs?: number;
  confirmedNoTime?: boolean;
}

function read(p: Probe, a: Answer): void {
  const e = a.body as Record<string, unknown> | undefined;
  const status = String(e?.confirmation_status ?? "");
  const accepted = epochMs(e?.timestamp_accepted);
  if (accepted === undefined || !COMMITTED.has(status)) return;
  const committed = epochMs(e?.timestamp_committed);
  if (p.committedMs === undefined && committed !== undefined) p.committedMs = committed - accepted;
  if (!CONFIRMED.has(status)) return;
  const confirm = (e?.merklelog_entry as { confirm?: { timestamp?: unknown } } | undefined)?.confirm;
  const sealed = epochMs(confirm?.timestamp);
  if (sealed === undefined) p.confirmedNoTime = true;
  else p.confirmedMs = sealed - accepted;
}

/**
 * Polls each sampled event until it is CONFIRMED (or the deadline passes). The latencies are
 * taken from the server's own timestamps, so how late the polling looks does not matter.
 */
export async function trustLatency(
  origin: string,
  token: string,
  samples: LoadSample[],
  timeoutMs: number,
): Promise<TrustLatency> {
  const probes: Probe[] = samples.map((s) => ({ path: `/archivist/v2/${s.value}` }));
  const deadline = Date.now() + timeoutMs;
  const open = () => probes.filter((p) => p.confirmedMs === undefined && !p.confirmedNoTime);
  while (open().length > 0 && Date.now() < deadline) {
    const batch = open();
    for (let i = 0; i < batch.length; i += 8)
      await Promise.all(
        batch.slice(i, i + 8).map(async (p) => read(p, await call(origin, "GET", p.path, { token }))),
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  const values = (k: "committedMs" | "confirmedMs") =>
    probes.flatMap((p) => (p[k] === undefined ? [] : [p[k] as number]));
  return {
    sampled: probes.length,
    committed: summarize(values("committedMs")),
    confirmed: summarize(values("confirmedMs")),
    confirmedWithoutTime: probes.filter((p) => p.confirmedNoTime).length,
  };
}
