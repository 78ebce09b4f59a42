import { meter } from "../proc.js";
import type { Scenario } from "../scenario.js";
import { perSecond } from "../stats.js";
import { TARGETS } from "../targets.js";
import { type BenchPass, benchChain } from "./conserver-chain.js";

/** The rows of one pass; `label` names it ("chain → archivist" is the target's row). */
function reportPass(
  ctx: Parameters<Scenario["run"]>[0],
  label: string,
  r: BenchPass,
  target: number | undefined,
) {
  ctx.results.add(
    "conserver",
    label,
    perSecond(r.vcons, r.ms),
    "vCons/s",
    target ? { value: target, label: "target" } : undefined,
  );
  if (r.requests !== undefined)
    ctx.results.add("conserver", `${label}: delivery requests per vCon`, r.requests / r.vcons, "requests");
  if (r.deliveriesPerJob !== undefined)
    ctx.results.add("conserver", `${label}: deliveries per queue job`, r.deliveriesPerJob, "deliveries");
  const u = r.usage;
  // Per vCon, each process's own share: what a change saves there, whatever else runs on the machine.
  const perVcon = (cores: number) => (cores * r.ms) / r.vcons;
  if (u?.cores !== undefined) {
    ctx.results.add("conserver", `${label}: server CPU`, u.cores, "cores");
    if (r.ms > 0) ctx.results.add("conserver", `${label}: server CPU per vCon`, perVcon(u.cores), "ms");
  }
  if (r.ms > 0) ctx.results.add("conserver", `${label}: chain CPU per vCon`, perVcon(r.chainCores), "ms");
  if (u?.machineCores !== undefined) {
    ctx.results.add("conserver", `${label}: machine CPU`, u.machineCores, "cores");
    // What one vCon costs the whole machine (service, database, Redis and the chain itself):
    // the budget at the target is 2 cores / 1,500 per second = 1.33 ms.
    if (r.ms > 0)
      ctx.results.add("conserver", `${label}: machine CPU per vCon`, perVcon(u.machineCores), "ms");
  }
}

/** A count from the environment, or `fallback`; anything but a whole number from `min` up is refused by name. */
function countFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`${name} must be a whole number of at least ${min}, not "${raw}"`);
  return n;
}

/** `conserver`: vCons per second through the link chain into the service. */
export const conserver: Scenario = {
  name: "conserver",
  async run(ctx) {
    const d = await ctx.service();
    // CONSERVER_BENCH_VCONS overrides the measured passes' vCons, CONSERVER_BENCH_WARM the
    // warm-up's. A conserver runs for days: its rate is the warm service's and chain's. In a fresh
    // pair of processes the first few seconds cost a third more CPU per vCon (JIT, connection
    // pools, caches; docs/performance.md, issue 35 seventh session), which at 10,000 vCons was a
    // fifth of the measured rate; the warm-up takes them and is reported on its own row.
    const vcons = countFromEnv("CONSERVER_BENCH_VCONS", ctx.opts.quick ? 500 : 10_000, 1);
    const warmVcons = countFromEnv("CONSERVER_BENCH_WARM", ctx.opts.quick ? 100 : 5_000, 0);
    ctx.log(`conserver: ${warmVcons} vCons to warm up, then ${vcons} through the chain`);
    const r = await benchChain({
      origin: d.origin,
      clientId: d.clientId,
      clientSecret: d.clientSecret,
      vcons,
      warmVcons,
      redisUrl: ctx.opts.redisUrl,
      meter: () => meter(d.pid),
    });
    const target = d.embedded ? TARGETS.conserverPglite : TARGETS.conserverPostgres;
    if (r.cold) reportPass(ctx, "warm-up: first new vCons, cold processes", r.cold, undefined);
    reportPass(ctx, "chain → archivist", r, target);
    reportPass(ctx, "later operation, known vCon", r.later, undefined);
    // Each reading starts its own peak: the run's is the larger.
    const peaks = [r.cold?.usage?.peakRssMiB, r.usage?.peakRssMiB, r.later.usage?.peakRssMiB].filter(
      (p) => p !== undefined,
    );
    if (peaks.length) ctx.results.add("conserver", "server peak RSS", Math.max(...peaks), "MiB");
  },
};
