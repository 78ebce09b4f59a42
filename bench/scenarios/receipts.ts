import { call } from "../http.js";
import { reportPhase, runPhase } from "../phase.js";
import { createAsset, postEvent } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { summarize } from "../stats.js";
import { TARGETS } from "../targets.js";

const TARGET = {
  rate: { value: TARGETS.receiptsCached, label: "target" },
  p99: { value: TARGETS.receiptsP99Ms, label: "target" },
};

async function postEvents(d: Deployment, token: string, n: number): Promise<string[]> {
  const asset = await createAsset(d, token, "receipts");
  const ids: string[] = [];
  // 16 at a time: enough for the group commit to batch, few enough to stay a set-up step.
  for (let i = 0; i < n; i += 16) {
    const batch = Array.from({ length: Math.min(16, n - i) }, (_, k) =>
      postEvent(d, token, asset, { bench_n: String(i + k) }),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/** Polls each receipt until it is served (the record sealed); the first 200 is a cold, uncached receipt. */
async function firstReceipts(ctx: ScenarioContext, d: Deployment, token: string, paths: string[]) {
  const cold: number[] = [];
  const served: string[] = [];
  let open = paths;
  const deadline = Date.now() + (ctx.opts.quick ? 15_000 : 30_000);
  while (open.length > 0 && Date.now() < deadline) {
    const still: string[] = [];
    for (let i = 0; i < open.length; i += 8)
      await Promise.all(
        open.slice(i, i + 8).map(async (p) => {
          const t0 = performance.now();
          const a = await call(d.origin, "GET", p, { token });
          if (a.status !== 200) {
            still.push(p);
            return;
          }
          cold.push(performance.now() - t0);
          served.push(p);
        }),
      );
    open = still;
    if (open.length) await new Promise((r) => setTimeout(r, 250));
  }
  return { cold: summarize(cold), served, missing: open.length };
}

/**
 * Reports the first (cold) fetches' p50 and p99, then fetches every served receipt again, 16 in
 * flight: the cached rate. `name` prefixes the metrics (the profile), `label` names the phase.
 */
async function reportFetches(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  first: Awaited<ReturnType<typeof firstReceipts>>,
  o: { name: string; label: string; note?: string },
): Promise<void> {
  const metric = `${o.name}first fetch (built + ES256-signed)`;
  ctx.results.add("receipts", `${metric} p50`, first.cold.p50, "ms", undefined, o.note);
  ctx.results.add("receipts", `${metric} p99`, first.cold.p99, "ms");
  const phase = await runPhase(ctx, d, {
    label: o.label,
    requests: first.served.map((path) => ({
      method: "GET",
      path,
      headers: { authorization: `Bearer ${token}` },
    })),
    concurrency: 16,
  });
  reportPhase(ctx, "receipts", `${o.name}repeat fetch (cached per seal)`, phase, "receipts/s", TARGET);
}

/** `receipts`: COSE receipts of sealed events, first (signed) and repeated (cached) fetches. */
export const receipts: Scenario = {
  name: "receipts",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const n = ctx.opts.quick ? 48 : 400;
    ctx.log(`receipts: posting ${n} events and waiting for their seal`);
    const paths = (await postEvents(d, token, n)).map((id) => `/archivist/v1/receipts/${id}`);
    const probe = await call(d.origin, "GET", paths[0] as string, { token });
    if (probe.status === 404) {
      ctx.results.na("receipts", "receipt", "endpoint not available");
      return;
    }
    const first = await firstReceipts(ctx, d, token, paths);
    if (first.cold.count === 0) {
      ctx.results.na(
        "receipts",
        "receipt",
        `no receipt served within the wait (${probe.status}: ${probe.text.slice(0, 100)})`,
      );
      return;
    }
    const note = first.missing
      ? `${first.missing} of ${n} never sealed in time`
      : "from the bench process, 8 in flight";
    await reportFetches(ctx, d, token, first, { name: "", label: "receipts", note });
    // The same records' RFC9162_SHA256 receipts: built from the tree's stored subtrees, signed over its root.
    const rfc = await firstReceipts(
      ctx,
      d,
      token,
      first.served.map((p) => `${p}?profile=rfc9162`),
    );
    if (rfc.cold.count === 0) {
      ctx.results.na("receipts", "RFC 9162 receipt", "no RFC 9162 receipt served");
      return;
    }
    await reportFetches(ctx, d, token, rfc, { name: "RFC 9162 ", label: "receipts-rfc9162" });
  },
};
