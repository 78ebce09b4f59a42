import { call } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { runPhase } from "../phase.js";
import { createAsset, postEvent } from "../records.js";
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

/** What both services take in each round (`BENCH_PAIR_LOAD`). */
type PairLoad = "ingest" | "receipts" | "reads";
const LOADS: readonly PairLoad[] = ["ingest", "receipts", "reads"];
/** Events each service holds before a receipts or reads round: enough that caches do not hold one receipt. */
const SEEDED = 256;

/**
 * The requests of a round: for `receipts`, the receipts of sealed events in turn (the first of
 * each is signed, later ones cached, as clients see them); for `reads`, the first pages of the
 * asset's events, of all events and of assets, and one event, in turn.
 */
async function requestsFor(
  load: PairLoad,
  d: Deployment,
  token: string,
  asset: string,
): Promise<RequestTemplate[]> {
  const headers = { authorization: `Bearer ${token}` };
  if (load === "ingest") return [eventRequest(token, asset)];
  const ids: string[] = [];
  for (let i = 0; i < SEEDED; i += 16)
    ids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(16, SEEDED - i) }, (_, k) =>
          postEvent(d, token, asset, { pair_n: String(i + k) }),
        ),
      )),
    );
  // A receipt is served once its record is sealed: wait for the last one written.
  const last = `/archivist/v1/receipts/${ids.at(-1)}`;
  const deadline = Date.now() + 60_000;
  while ((await call(d.origin, "GET", last, { token })).status !== 200) {
    if (Date.now() > deadline) throw new Error(`pair: ${last} was not served within a minute`);
    await new Promise((r) => setTimeout(r, 200));
  }
  if (load === "receipts")
    return ids.map((id) => ({ method: "GET", path: `/archivist/v1/receipts/${id}`, headers }));
  return [
    { method: "GET", path: `/archivist/v2/${asset}/events?page_size=50`, headers },
    { method: "GET", path: "/archivist/v2/assets/-/events?page_size=50", headers },
    { method: "GET", path: "/archivist/v2/assets?page_size=50", headers },
    { method: "GET", path: `/archivist/v2/${ids[0]}`, headers },
  ];
}

async function prepared(d: Deployment, name: string, load: PairLoad) {
  const token = await d.token();
  const asset = await createAsset(d, token, name);
  return { d, token, asset, requests: await requestsFor(load, d, token, asset) };
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
 * runtime flag (e.g. `--single-threaded-gc`) against none. `BENCH_PAIR_LOAD` picks the load:
 * `ingest` (the default: asset events written), `receipts` (receipts of sealed events) or
 * `reads` (lists and a record); the ratio is then server CPU per request.
 */
export const pair: Scenario = {
  name: "pair",
  async run(ctx: ScenarioContext) {
    const other = process.env.BENCH_PAIR_CLI;
    if (!other) {
      ctx.results.na("pair", "ingest side by side", "BENCH_PAIR_CLI names the other tree's built CLI");
      return;
    }
    const load = (process.env.BENCH_PAIR_LOAD ?? "ingest") as PairLoad;
    if (!LOADS.includes(load)) throw new Error(`BENCH_PAIR_LOAD is one of ${LOADS.join(", ")}`);
    const unit = load === "ingest" ? "event" : "request";
    const [mine, theirs] = await Promise.all([
      ctx
        .extraService({}, { nodeArgs: (process.env.BENCH_PAIR_NODE_ARGS ?? "").split(" ").filter(Boolean) })
        .then((d) => prepared(d, "pair: this tree", load)),
      ctx.extraService({}, { cli: other }).then((d) => prepared(d, "pair: other tree", load)),
    ]);
    // BENCH_PAIR_ROUNDS: more rounds where the machine is noisy (a PVM guest's spread ±20 %).
    const rounds = ctx.opts.quick ? 1 : Math.max(1, Number(process.env.BENCH_PAIR_ROUNDS) || 5);
    const ratios: number[] = [];
    // Round 0 warms both services up (their first seconds read ~50 % dearer per event, JIT and
    // caches) and is not reported.
    for (let round = 0; round <= rounds; round++) {
      const phase = (s: typeof mine, who: string) =>
        runPhase(ctx, s.d, {
          label: round === 0 ? `pair ${load} warm-up, ${who}` : `pair ${load} round ${round}, ${who}`,
          requests: s.requests,
          concurrency: IN_FLIGHT,
          connections: IN_FLIGHT,
        });
      const [a, b] = await Promise.all([phase(mine, "this tree"), phase(theirs, "other tree")]);
      if (round === 0) continue;
      const ua = perEvent(a.usage.cores, a.result.throughput);
      const ub = perEvent(b.usage.cores, b.result.throughput);
      ctx.results.add("pair", `${load} round ${round}: this tree's server CPU per ${unit}`, ua ?? null, "µs");
      ctx.results.add(
        "pair",
        `${load} round ${round}: other tree's server CPU per ${unit}`,
        ub ?? null,
        "µs",
      );
      ctx.results.add(
        "pair",
        `${load} round ${round}: rates, this / other`,
        a.result.throughput,
        `${unit}s/s`,
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
      `${load}: server CPU per ${unit}, this ÷ other (median of the rounds)`,
      ratios.length ? median(ratios) : null,
      "ratio",
      undefined,
      `${ratios.length} rounds: ${ratios.map((r) => r.toFixed(3)).join(", ")}${spread}`,
    );
  },
};
