import { runPhase } from "../phase.js";
import { createAsset } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { medianInterval } from "../stats.js";
import { eventRequest } from "./ingest.js";

/** Requests in flight at each service: together they load the machine as ingest's 64 do one. */
const IN_FLIGHT = 32;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Server CPU per accepted event in one phase, µs (undefined when nothing was measured). */
function perEvent(cores: number | undefined, rate: number): number | undefined {
  return cores !== undefined && rate > 0 ? (cores / rate) * 1e6 : undefined;
}

async function prepared(d: Deployment, name: string) {
  const token = await d.token();
  return { d, token, asset: await createAsset(d, token, name) };
}

/**
 * `pair`: this tree's service and another tree's (`BENCH_PAIR_CLI`, its built
 * `dist/src/cli/main.js`) take the same ingest load at the same time, in rounds, and each round
 * compares their server CPU per accepted event. Run one after the other, two trees' numbers
 * differ by as much as the VM's speed moves between the runs (a third within an hour here, by
 * 10–20 % between neighbouring runs), which hides a change of a few per cent; side by side, both
 * see the same machine. The ratio is this tree's CPU per event ÷ the other's: below 1, this
 * tree's service does an event's work for less. `BENCH_PAIR_NODE_ARGS` adds node arguments to this
 * tree's service only: with `BENCH_PAIR_CLI` naming this tree's own CLI, the pair compares a
 * runtime flag (e.g. `--single-threaded-gc`) against none.
 */
export const pair: Scenario = {
  name: "pair",
  async run(ctx: ScenarioContext) {
    const other = process.env.BENCH_PAIR_CLI;
    if (!other) {
      ctx.results.na("pair", "ingest side by side", "BENCH_PAIR_CLI names the other tree's built CLI");
      return;
    }
    const [mine, theirs] = await Promise.all([
      ctx
        .extraService({}, { nodeArgs: (process.env.BENCH_PAIR_NODE_ARGS ?? "").split(" ").filter(Boolean) })
        .then((d) => prepared(d, "pair: this tree")),
      ctx.extraService({}, { cli: other }).then((d) => prepared(d, "pair: other tree")),
    ]);
    // BENCH_PAIR_ROUNDS: more rounds where the machine is noisy (a PVM guest's spread ±20 %).
    const rounds = ctx.opts.quick ? 1 : Math.max(1, Number(process.env.BENCH_PAIR_ROUNDS) || 5);
    const ratios: number[] = [];
    // Round 0 warms both services up (their first seconds read ~50 % dearer per event, JIT and
    // caches) and is not reported.
    for (let round = 0; round <= rounds; round++) {
      const phase = (s: typeof mine, who: string) =>
        runPhase(ctx, s.d, {
          label: round === 0 ? `pair warm-up, ${who}` : `pair round ${round}, ${who}`,
          requests: [eventRequest(s.token, s.asset)],
          concurrency: IN_FLIGHT,
          connections: IN_FLIGHT,
        });
      const [a, b] = await Promise.all([phase(mine, "this tree"), phase(theirs, "other tree")]);
      if (round === 0) continue;
      const ua = perEvent(a.usage.cores, a.result.throughput);
      const ub = perEvent(b.usage.cores, b.result.throughput);
      ctx.results.add("pair", `round ${round}: this tree's server CPU per event`, ua ?? null, "µs");
      ctx.results.add("pair", `round ${round}: other tree's server CPU per event`, ub ?? null, "µs");
      ctx.results.add(
        "pair",
        `round ${round}: rates, this / other`,
        a.result.throughput,
        "events/s",
        undefined,
        `other ${Math.round(b.result.throughput)}/s`,
      );
      if (ua !== undefined && ub !== undefined) ratios.push(ua / ub);
    }
    // Where the median of this many rounds may lie, whatever the machine's spread: a change
    // whose interval holds 1 is not told apart from none by these rounds.
    const interval = medianInterval(ratios);
    const spread = interval
      ? `; median within ${interval.low.toFixed(3)}–${interval.high.toFixed(3)} (${(100 * interval.coverage).toFixed(1)} % sure)`
      : "";
    ctx.results.add(
      "pair",
      "server CPU per event, this ÷ other (median of the rounds)",
      ratios.length ? median(ratios) : null,
      "ratio",
      undefined,
      `${ratios.length} rounds: ${ratios.map((r) => r.toFixed(3)).join(", ")}${spread}`,
    );
  },
};
