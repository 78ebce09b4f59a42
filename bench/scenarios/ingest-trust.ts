import { type Drain, drainBacklog, drainRow } from "../backlog.js";
import { trustLatency } from "../commit-latency.js";
import type { LoadSample } from "../load-spec.js";
import type { ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { TARGETS } from "../targets.js";

/** Waits for the committer to take the asset's STORED events into the log, and reports its catch-up. */
export async function drain(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  asset: string,
  label: string,
): Promise<Drain | undefined> {
  const dr = await drainBacklog(
    d.origin,
    token,
    `/archivist/v2/${asset}/events`,
    ctx.opts.quick ? 15_000 : 60_000,
  );
  if (dr)
    ctx.log(
      `${label}: committer took ${dr.initial - dr.remaining} of ${dr.initial} STORED events in ${dr.ms} ms`,
    );
  const row = drainRow(dr);
  ctx.results.add("ingest", `${label} committer catch-up`, row.value, "events/s", undefined, row.note);
  return dr;
}

/** Polls the sampled events and reports POST→COMMITTED (vs the 1 s target) and POST→CONFIRMED. */
export async function reportTrust(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  name: string,
  samples: LoadSample[],
  dr: Drain | undefined,
): Promise<void> {
  if (dr && dr.initial > 0 && dr.remaining === dr.initial) {
    ctx.results.na("ingest", `${name} POST→COMMITTED`, "nothing was committed (committer not running?)");
    return;
  }
  ctx.log(`${name}: polling ${samples.length} sampled events until CONFIRMED`);
  const t = await trustLatency(d.origin, token, samples, ctx.opts.quick ? 10_000 : 30_000);
  const target = { value: TARGETS.commitP99Ms, label: "target" };
  for (const [what, s] of [
    ["POST→COMMITTED", t.committed],
    ["POST→CONFIRMED", t.confirmed],
  ] as const) {
    const missing = t.sampled - s.count;
    // A p99 over the samples that happened to arrive would flatter the service: report none then.
    if (t.sampled === 0 || missing > t.sampled * 0.01) {
      const why =
        what === "POST→CONFIRMED" && t.confirmedWithoutTime ? " (no merklelog_entry.confirm.timestamp)" : "";
      ctx.results.na(
        "ingest",
        `${name} ${what}`,
        `${missing} of ${t.sampled} sampled events not there in time${why}`,
      );
      continue;
    }
    ctx.results.add("ingest", `${name} ${what} p50`, s.p50, "ms", undefined, "server timestamps");
    const lim = what === "POST→COMMITTED" ? target : undefined;
    ctx.results.add("ingest", `${name} ${what} p99`, s.p99, "ms", lim, `${s.count} sampled`);
  }
}
