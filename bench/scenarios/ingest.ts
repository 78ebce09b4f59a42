import type { RequestTemplate } from "../load-spec.js";
import { reportPhase, runPhase } from "../phase.js";
import { createAsset } from "../records.js";
import { engineOf, type Scenario, type ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { TARGETS } from "../targets.js";
import { drain, reportTrust } from "./ingest-trust.js";

// A vCon-operation-sized event (what the conserver link posts), unique per request.
const EVENT = JSON.stringify({
  operation: "Record",
  behaviour: "RecordEvidence",
  event_attributes: {
    arc_display_type: "vcon_created",
    subject: "vcon://bench-{{n}}",
    payload: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    payload_hash_alg: "SHA-256",
  },
});

/** One fixed offered load (open loop), then the trust latencies of a sample of its events. */
async function offered(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  asset: string,
  rate: number,
  pct: number,
) {
  const max = ctx.opts.quick ? 40 : 200;
  const expected = rate * ctx.opts.durationS;
  const name = `${pct}% (${Math.round(rate)}/s offered)`;
  const phase = await runPhase(ctx, d, {
    label: `ingest ${pct}%`,
    requests: [eventRequest(token, asset)],
    rate,
    concurrency: 256,
    connections: 64,
    sample: { field: "identity", every: Math.max(1, Math.floor(expected / max)), max },
  });
  reportPhase(ctx, "ingest", name, phase, "events/s");
  const dr = await drain(ctx, d, token, asset, name);
  await reportTrust(ctx, d, token, name, phase.result.samples, dr);
}

// An asset as the conserver link creates one per vCon: unique subject, a display type.
const ASSET = JSON.stringify({
  behaviours: ["RecordEvidence"],
  attributes: {
    arc_display_type: "vcon",
    arc_display_name: "bench {{n}}",
    subject: "vcon://bench-asset-{{n}}",
  },
});

/** Asset creation at 64 in flight: each is an asset row and its NewAsset event. */
async function assetCreation(ctx: ScenarioContext, d: Deployment, token: string) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const phase = await runPhase(ctx, d, {
    label: "asset creation, 64 in flight",
    requests: [{ method: "POST", path: "/archivist/v2/assets", headers, body: ASSET }],
    concurrency: 64,
    connections: 64,
  });
  reportPhase(ctx, "ingest", "asset creation (64 in flight)", phase, "assets/s");
}

export function eventRequest(token: string, asset: string): RequestTemplate {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  return { method: "POST", path: `/archivist/v2/${asset}/events`, headers, body: EVENT };
}

/**
 * Requests in flight for the saturation phases. Throughput still grows past 64 (a group
 * commit's flush takes ~10 ms here, so 64 clients leave the server waiting), so saturation is
 * the best of these, each printed with its own latencies.
 */
const SATURATION_IN_FLIGHT = [64, 256] as const;

/** `ingest`: asset events at saturation and at 25% and 50% of it, then POST→COMMITTED/CONFIRMED; then asset creation. */
export const ingest: Scenario = {
  name: "ingest",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const asset = await createAsset(d, token, "ingest");
    const engine = engineOf(ctx.opts);
    const target = engine === "postgres" ? TARGETS.ingestPostgres : TARGETS.ingestPglite;
    let best = 0;
    for (const inFlight of SATURATION_IN_FLIGHT) {
      const sat = await runPhase(ctx, d, {
        label: `ingest saturation, ${inFlight} in flight`,
        requests: [eventRequest(token, asset)],
        concurrency: inFlight,
        connections: Math.min(inFlight, 64),
      });
      reportPhase(ctx, "ingest", `${inFlight} in flight`, sat, "events/s");
      best = Math.max(best, sat.result.throughput);
      await drain(ctx, d, token, asset, `after ${inFlight} in flight`);
    }
    ctx.results.add("ingest", "saturation rate (best of the above)", best, "events/s", {
      value: target,
      label: `target ${engine}`,
    });
    if (best > 0) for (const pct of [25, 50]) await offered(ctx, d, token, asset, (best * pct) / 100, pct);
    await assetCreation(ctx, d, token);
  },
};
