import { call } from "../http.js";
import type { RequestTemplate } from "../load-spec.js";
import { runPhase } from "../phase.js";
import { meter, OwnCpu, type ProcUsage } from "../proc.js";
import { createAsset, postEvent } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { CLI, type Deployment } from "../service.js";
import { medianInterval } from "../stats.js";
import { benchChain } from "./conserver-chain.js";
import { eventRequest } from "./ingest.js";

/** Requests in flight at each service: together they load the machine as ingest's 64 do one. */
const IN_FLIGHT = 32;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** What both services take in each round (`BENCH_PAIR_LOAD`, one or several, comma-separated). */
type PairLoad = "ingest" | "receipts" | "reads" | "conserver";
const LOADS: readonly PairLoad[] = ["ingest", "receipts", "reads", "conserver"];
/** Events each service holds before a receipts or reads round: enough that caches do not hold one receipt. */
const SEEDED = 256;

/** The loads `BENCH_PAIR_LOAD` names (default `ingest`); anything else is refused by name. */
function pairLoads(raw: string | undefined): PairLoad[] {
  const names = (raw || "ingest").split(",").map((s) => s.trim());
  for (const n of names)
    if (!(LOADS as readonly string[]).includes(n))
      throw new Error(`BENCH_PAIR_LOAD is a comma-separated list of ${LOADS.join(", ")}, not "${n}"`);
  return names as PairLoad[];
}

/**
 * The requests of a round: for `receipts`, the receipts of sealed events in turn (the first of
 * each is signed, later ones cached, as clients see them); for `reads`, the first pages of the
 * asset's events, of all events and of assets, and one event, in turn.
 */
async function requestsFor(
  load: Exclude<PairLoad, "conserver">,
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

/** One side of the pair: its deployment and the reading of its own processes' CPU. */
interface Side {
  d: Deployment;
  own: OwnCpu;
  who: "this tree" | "other tree";
}

/** What one side's records cost in one round: CPU per record, µs, and records per second. */
interface Reading {
  /** The service process alone. */
  server: number | undefined;
  /** The service, its children and its database's backends (`OwnCpu`). */
  machine: number | undefined;
  rate: number;
}

/** One measure of a round (a load, or one pass of the conserver's), both sides. */
export interface Measured {
  /** The measure's name in the rows ("ingest", "conserver new vCons", …). */
  name: string;
  unit: string;
  mine: Reading;
  theirs: Reading;
}

/** CPU per record, µs, of `cores` kept busy at `rate` records per second. */
function perRecord(cores: number | undefined, rate: number): number | undefined {
  return cores !== undefined && rate > 0 ? (cores / rate) * 1e6 : undefined;
}

function reading(usage: ProcUsage | undefined, rate: number): Reading {
  return { server: perRecord(usage?.cores, rate), machine: perRecord(usage?.ownCores, rate), rate };
}

/**
 * Runs a round on both sides at once, the side started first alternating from round to round, so
 * that each order is half the rounds and no ratio holds one order's advantage. It does not remove
 * a side's bias through a whole run: a tree against itself read 0.90–1.06 over five runs
 * (docs/performance.md). Results come back in the sides' order.
 */
async function bothSides<S, R>(
  sides: readonly [S, S],
  round: number,
  run: (s: S) => Promise<R>,
): Promise<[R, R]> {
  if (round % 2 === 1) {
    const [first, second] = sides;
    return Promise.all([run(first), run(second)]);
  }
  const [first, second] = [sides[1], sides[0]];
  const [b, a] = await Promise.all([run(first), run(second)]);
  return [a, b];
}

/** The rounds of an HTTP load: both services take it at once, `rounds` measured after a warm-up. */
async function httpRounds(
  ctx: ScenarioContext,
  load: Exclude<PairLoad, "conserver">,
  sides: [Side, Side],
  rounds: number,
): Promise<Measured[][]> {
  const prepare = async (s: Side) => {
    const token = await s.d.token();
    const asset = await createAsset(s.d, token, `pair: ${s.who}`);
    return { ...s, requests: await requestsFor(load, s.d, token, asset) };
  };
  const prepared = await Promise.all([prepare(sides[0]), prepare(sides[1])]);
  const unit = load === "ingest" ? "event" : "request";
  const out: Measured[][] = [];
  // Round 0 warms both services up (their first seconds read ~50 % dearer per event, JIT and
  // caches) and is not reported.
  for (let round = 0; round <= rounds; round++) {
    const [a, b] = await bothSides(prepared, round, (s) =>
      runPhase(
        ctx,
        s.d,
        {
          label: round === 0 ? `pair ${load} warm-up, ${s.who}` : `pair ${load} round ${round}, ${s.who}`,
          requests: s.requests,
          concurrency: IN_FLIGHT,
          connections: IN_FLIGHT,
        },
        s.own,
      ),
    );
    if (round === 0 || !a || !b) continue;
    out.push([
      {
        name: load,
        unit,
        mine: reading(a.usage, a.result.throughput),
        theirs: reading(b.usage, b.result.throughput),
      },
    ]);
  }
  return out;
}

/**
 * The rounds of the conserver load: each service takes the conserver chain's vCons (new ones,
 * then a later operation on each) from a chain of its own, both chains at once in this process.
 * The chains' own CPU (this process, the same code for both sides) and Redis's (one server for
 * both) are nobody's: a side's machine CPU is its service's and its database's.
 */
async function conserverRounds(ctx: ScenarioContext, sides: [Side, Side], rounds: number) {
  const vcons = ctx.opts.quick ? 500 : 5_000;
  const warm = ctx.opts.quick ? 200 : 2_000;
  const out: Measured[][] = [];
  for (let round = 1; round <= rounds; round++) {
    // The first round's chains warm both services up with vCons of their own, not measured.
    ctx.log(`pair conserver round ${round}: ${round === 1 ? `${warm} vCons to warm up, then ` : ""}${vcons}`);
    const [a, b] = await bothSides(sides, round, (s) =>
      benchChain({
        origin: s.d.origin,
        clientId: s.d.clientId,
        clientSecret: s.d.clientSecret,
        vcons,
        warmVcons: round === 1 ? warm : 0,
        redisUrl: ctx.opts.redisUrl,
        meter: () => meter(s.d.pid, s.own),
      }),
    );
    if (!a || !b) continue;
    const rate = (p: { vcons: number; ms: number }) => (p.ms > 0 ? (p.vcons / p.ms) * 1000 : 0);
    out.push([
      {
        name: "conserver new vCons",
        unit: "vCon",
        mine: reading(a.usage, rate(a)),
        theirs: reading(b.usage, rate(b)),
      },
      {
        name: "conserver later operation",
        unit: "vCon",
        mine: reading(a.later.usage, rate(a.later)),
        theirs: reading(b.later.usage, rate(b.later)),
      },
    ]);
  }
  return out;
}

/** Adds a round's rows: each side's CPU per record (machine and server) and the two rates. */
function reportRound(ctx: ScenarioContext, round: number, m: Measured): void {
  const add = ctx.results.add.bind(ctx.results);
  const head = `${m.name} round ${round}`;
  for (const [who, r] of [
    ["this tree", m.mine],
    ["other tree", m.theirs],
  ] as const) {
    add(
      "pair",
      `${head}: ${who}'s machine CPU per ${m.unit}`,
      r.machine ?? null,
      "µs",
      undefined,
      "service + its database",
    );
    add("pair", `${head}: ${who}'s server CPU per ${m.unit}`, r.server ?? null, "µs");
  }
  add(
    "pair",
    `${head}: rates, this / other`,
    m.mine.rate,
    `${m.unit}s/s`,
    undefined,
    `other ${Math.round(m.theirs.rate)}/s`,
  );
}

/** Adds a measure's summary rows over the rounds: each side's median, and the ratios' median. */
export function reportSummary(ctx: Pick<ScenarioContext, "results">, ms: Measured[]): void {
  const first = ms[0];
  if (!first) return;
  const { name, unit } = first;
  const add = ctx.results.add.bind(ctx.results);
  const defined = (xs: Array<number | undefined>) => xs.filter((x): x is number => x !== undefined);
  for (const [who, pick] of [
    ["this tree", (m: Measured) => m.mine.machine],
    ["other tree", (m: Measured) => m.theirs.machine],
  ] as const) {
    const xs = defined(ms.map(pick));
    add(
      "pair",
      `${name}: ${who}'s machine CPU per ${unit} (median of the rounds)`,
      xs.length === ms.length ? median(xs) : null,
      "µs",
      undefined,
      xs.length === ms.length ? undefined : "not measured in every round",
    );
  }
  // The database's share (machine less server: its backends, and the service's child processes,
  // where it has any) says on which side of the wire a difference lies: the service's profile
  // cannot see it, and the machine's ratio blends the two.
  const database = (r: Reading) =>
    r.machine !== undefined && r.server !== undefined ? r.machine - r.server : undefined;
  for (const [what, pick] of [
    ["machine", (r: Reading) => r.machine],
    ["server", (r: Reading) => r.server],
    ["database", database],
  ] as const) {
    const ratios = defined(
      ms.map((m) => {
        const [a, b] = [pick(m.mine), pick(m.theirs)];
        return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
      }),
    );
    // Where the median of this many rounds may lie, whatever the machine's spread: a change
    // whose interval holds 1 is not told apart from none by these rounds.
    const interval = medianInterval(ratios);
    const spread = interval
      ? `; median within ${interval.low.toFixed(3)}–${interval.high.toFixed(3)} (${(100 * interval.coverage).toFixed(1)} % sure)`
      : "";
    add(
      "pair",
      `${name}: ${what} CPU per ${unit}, this ÷ other (median of the rounds)`,
      ratios.length ? median(ratios) : null,
      "ratio",
      undefined,
      `${ratios.length} rounds: ${ratios.map((r) => r.toFixed(3)).join(", ")}${spread}`,
    );
  }
}

/** Both services of one load: started (the other tree's from an empty database), measured, stopped. */
async function pairLoad(ctx: ScenarioContext, load: PairLoad, other: string, rounds: number): Promise<void> {
  const args = (v: string | undefined) => (v ?? "").split(" ").filter(Boolean);
  const nodeArgs = args(process.env.BENCH_PAIR_NODE_ARGS);
  // Both sides start alike, each migrating a database of its own from empty: a service started
  // from the run's template cost 6–9 % more service CPU per event than the same tree started
  // from empty, which `pair` of a tree against itself showed (1.06–1.09).
  const started = await Promise.allSettled([
    ctx.extraService({}, { cli: CLI, nodeArgs }),
    ctx.extraService({}, { cli: other, nodeArgs: args(process.env.BENCH_PAIR_OTHER_NODE_ARGS) }),
  ]);
  const [mine, theirs] = started.map((s) => (s.status === "fulfilled" ? s.value : undefined));
  try {
    for (const s of started) if (s.status === "rejected") throw s.reason;
    if (!mine || !theirs) return;
    const sides: [Side, Side] = [
      { d: mine, own: await OwnCpu.start(mine.ownProcesses()), who: "this tree" },
      { d: theirs, own: await OwnCpu.start(theirs.ownProcesses()), who: "other tree" },
    ];
    try {
      const measured =
        load === "conserver"
          ? await conserverRounds(ctx, sides, rounds)
          : await httpRounds(ctx, load, sides, rounds);
      measured.forEach((ms, i) => {
        for (const m of ms) reportRound(ctx, i + 1, m);
      });
      const names = [...new Set(measured.flat().map((m) => m.name))];
      for (const name of names)
        reportSummary(
          ctx,
          measured.flat().filter((m) => m.name === name),
        );
    } finally {
      await Promise.all(sides.map((s) => s.own.stop()));
    }
  } finally {
    // Each load on services of its own: the next load does not read what this one wrote.
    await Promise.all([mine?.dispose(), theirs?.dispose()]);
  }
}

/**
 * `pair`: this tree's service and another tree's (`BENCH_PAIR_CLI`, its built
 * `dist/src/cli/main.js`) take the same load at the same time, in rounds, and each round
 * compares what a record costs each side. Run one after the other, two trees' numbers differ by
 * as much as the VM's speed moves between the runs (a third within an hour here, by 10–20 %
 * between neighbouring runs), which hides a change of a few per cent; side by side, both see the
 * same machine.
 *
 * A side's **machine CPU** per record is its service's (with any children) and its database's:
 * on PostgreSQL the backends of its own database (`OwnCpu`), on PGlite the service alone, the
 * database being inside it. Both run at once, so the machine-wide /proc/stat cannot be split;
 * each side's processes are read instead. Its **server CPU** is the service process's alone,
 * blind to the database's work (issue 59: a status read that became a scan of the tenancy cost
 * the database nine times more and the service nothing). The ratios are this tree's ÷ the
 * other's: below 1, this tree does a record's work for less.
 *
 * Each service migrates a database of its own from empty (an older tree does not know this
 * tree's schema, and a start from the run's template cost more: `pairLoad`). `BENCH_PAIR_NODE_ARGS`
 * adds node arguments to this tree's service only: with `BENCH_PAIR_CLI` naming this tree's own
 * CLI, the pair compares a runtime flag (e.g. `--single-threaded-gc`) against none.
 * `BENCH_PAIR_OTHER_NODE_ARGS` adds them to the other tree's: `--cpu-prof` on both sides gives
 * two profiles of the same work at the same moment, to set side by side.
 * `BENCH_PAIR_LOAD` picks the loads, comma-separated, each on fresh services: `ingest` (the
 * default: asset events written), `receipts` (receipts of sealed events), `reads` (lists and a
 * record; the unit is then the request) or `conserver` (the conserver chain's new vCons and a
 * later operation on each, one chain per side, both at once).
 */
export const pair: Scenario = {
  name: "pair",
  async run(ctx: ScenarioContext) {
    const other = process.env.BENCH_PAIR_CLI;
    if (!other) {
      ctx.results.na("pair", "ingest side by side", "BENCH_PAIR_CLI names the other tree's built CLI");
      return;
    }
    const loads = pairLoads(process.env.BENCH_PAIR_LOAD);
    // BENCH_PAIR_ROUNDS: more rounds where the machine is noisy (a PVM guest's spread ±20 %).
    // Even by default: the side started first alternates (`bothSides`), so each order is half the rounds.
    const rounds = ctx.opts.quick ? 1 : Math.max(1, Number(process.env.BENCH_PAIR_ROUNDS) || 6);
    for (const load of loads) await pairLoad(ctx, load, other, rounds);
  },
};
