import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { meter } from "../proc.js";
import type { Scenario } from "../scenario.js";
import { perSecond } from "../stats.js";
import { TARGETS } from "../targets.js";

/** The hook plugins/conserver/bench.ts may export: run `vcons` vCons through a chain into `origin`. */
export type BenchChain = (opts: {
  origin: string;
  clientId: string;
  clientSecret: string;
  vcons: number;
  redisUrl: string | undefined;
}) => Promise<{ vcons: number; ms: number; requests?: number }>;

const HOOK = new URL("../../plugins/conserver/bench.js", import.meta.url);

/** `conserver`: vCons per second through the link chain into the service (when the plugin offers a runnable chain). */
export const conserver: Scenario = {
  name: "conserver",
  async run(ctx) {
    const mod = existsSync(fileURLToPath(HOOK))
      ? ((await import(HOOK.href)) as Record<string, unknown>)
      : undefined;
    const benchChain = mod?.benchChain as BenchChain | undefined;
    if (typeof benchChain !== "function") {
      ctx.results.na(
        "conserver",
        "chain",
        "plugins/conserver exports no runnable chain (bench.ts: benchChain)",
      );
      return;
    }
    const d = await ctx.service();
    // Long enough (~15 s here) that warm-up is a small part of the rate, short enough for a
    // default run of minutes (docs/performance.md); CONSERVER_BENCH_VCONS overrides.
    const vcons = Number(process.env.CONSERVER_BENCH_VCONS ?? (ctx.opts.quick ? 500 : 10_000));
    ctx.log(`conserver: ${vcons} vCons through the chain`);
    const stop = meter(d.pid);
    const r = await benchChain({
      origin: d.origin,
      clientId: d.clientId,
      clientSecret: d.clientSecret,
      vcons,
      redisUrl: ctx.opts.redisUrl,
    });
    const usage = stop();
    ctx.results.add("conserver", "chain → archivist", perSecond(r.vcons, r.ms), "vCons/s", {
      value: TARGETS.conserver,
      label: "target",
    });
    if (r.requests !== undefined)
      ctx.results.add("conserver", "delivery requests per vCon", r.requests / r.vcons, "requests");
    if (usage.cores !== undefined) ctx.results.add("conserver", "server CPU", usage.cores, "cores");
    if (usage.machineCores !== undefined)
      ctx.results.add("conserver", "machine CPU", usage.machineCores, "cores");
    // What one vCon costs the whole machine (service, database, Redis and the chain itself):
    // the budget at the target is 2 cores / 1,500 per second = 1.33 ms.
    if (usage.machineCores !== undefined && r.ms > 0)
      ctx.results.add("conserver", "machine CPU per vCon", (usage.machineCores * r.ms) / r.vcons, "ms");
    if (usage.peakRssMiB !== undefined)
      ctx.results.add("conserver", "server peak RSS", usage.peakRssMiB, "MiB");
  },
};
