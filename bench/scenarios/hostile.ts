import { gzipSync } from "node:zlib";
import type { RequestTemplate } from "../load-spec.js";
import { type Phase, type PhaseSpec, reportPhase, runPhase } from "../phase.js";
import { createAsset } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { x5chainFlood } from "./x5chain-flood.js";

/**
 * What a hostile client sends, by kind, none of it accepted: bombs, broken uploads, forged
 * tokens, huge numbers.
 */
function hostileKinds(token: string, asset: string): [string, RequestTemplate][] {
  const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20)).toString("base64");
  const truncated = Buffer.from(
    '--B\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n\r\nhel',
  ).toString("base64");
  const json = { "content-type": "application/json" };
  const junk = { authorization: "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" };
  const big = "99999999999999999999";
  const log = "/archivist/v1/merklelogs/00000000-0000-4000-8000-000000000001";
  return [
    // A 200 MB gzip bomb from a caller without a valid token: refused before its body is read.
    [
      "gzip bomb",
      {
        method: "POST",
        path: "/archivist/v2/assets",
        headers: { ...json, ...junk, "content-encoding": "gzip" },
        bodyBase64: bomb,
      },
    ],
    // A truncated upload from a caller with a token: busboy's error is a 400.
    [
      "truncated upload",
      {
        method: "POST",
        path: "/archivist/v1/blobs",
        headers: { authorization: `Bearer ${token}`, "content-type": "multipart/form-data; boundary=B" },
        bodyBase64: truncated,
      },
    ],
    ["out-of-range entry", { method: "GET", path: `${log}/entries/${big}` }],
    ["consistency of an unknown log", { method: "GET", path: `${log}/consistency?from=1&to=3` }],
    [
      "forged page token",
      {
        method: "GET",
        path: "/archivist/v2/assets?page_token=eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA",
        headers: { authorization: `Bearer ${token}` },
      },
    ],
    ["forged bearer token", { method: "GET", path: `/archivist/v2/${asset}`, headers: junk }],
    [
      "wrong client secret",
      {
        method: "POST",
        path: "/archivist/iam/v1/appidp/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=00000000-0000-4000-8000-000000000002&client_secret=guess{{n}}",
      },
    ],
    [
      "null body",
      {
        method: "POST",
        path: "/archivist/v2/assets",
        headers: { authorization: `Bearer ${token}`, ...json },
        body: "null",
      },
    ],
  ];
}

/**
 * One round's phases: benign alone, beside the hostile client, beside the x5chain flood, and the
 * next round's benign alone (`after`: a closing phase after the last round).
 */
export interface Round {
  alone: Phase;
  after: Phase;
  mixed: Phase;
  attack: Phase;
  underFlood: Phase;
  flood: Phase;
}

const ratio = (beside: Phase, alone: Phase) => beside.result.throughput / alone.result.throughput;

/**
 * The benign rate alone at a round's `k`-th phase (1: beside the attack, 2: beside the flood), read
 * off the line through the round's alone phase and the next one, three phases apart: the VM's speed
 * drifts within a scenario (by a fifth within one minute here), and a baseline taken only before
 * the beside phases charged a slowdown to the attacker, the flood (two phases later) twice over.
 */
export function aloneAt(r: Round, k: 1 | 2): number {
  const before = r.alone.result.throughput;
  return before + ((r.after.result.throughput - before) * k) / 3;
}

/** A round's ratio beside the attack or the flood: that phase's rate over the rate alone at its time. */
export const roundRatio = (r: Round, k: 1 | 2): number =>
  (k === 1 ? r.mixed : r.underFlood).result.throughput / aloneAt(r, k);

/** The item whose `key` is the median (the lower of the middle two for an even count). */
function medianBy<T>(items: T[], key: (item: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}

/** The round whose benign rate beside the attack (1) or the flood (2), over its rate alone then, is the median. */
export const medianRound = (rounds: Round[], k: 1 | 2): Round => medianBy(rounds, (r) => roundRatio(r, k));

/**
 * `BENCH_HOSTILE_EACH=1`: each kind alone at the scenario's hostile rate, no benign load, and the
 * service's CPU per request beside a benign read's at that rate: what the mix's ratio is made of,
 * without the benign side's noise.
 */
async function eachKindAlone(
  ctx: ScenarioContext,
  d: Deployment,
  reference: RequestTemplate,
  kinds: [string, RequestTemplate][],
  rate: number,
): Promise<void> {
  // A benign read at the same rate first: the service's cost of any request at this rate.
  for (const [name, request] of [["reference: a benign read", reference] as const, ...kinds]) {
    const p = await runPhase(ctx, d, {
      label: `alone: ${name}`,
      requests: [request],
      rate,
      concurrency: 64,
      connections: 16,
      okStatus: request === reference ? [200] : [400, 401, 404, 408, 413, 429],
    });
    reportPhase(ctx, "hostile", `alone: ${name}`, p, "req/s");
    const { cores, machineCores } = p.usage;
    const per = (c: number | undefined) => (c === undefined ? null : (c / p.result.throughput) * 1e6);
    ctx.results.add("hostile", `alone: ${name}: server CPU per request`, per(cores), "µs");
    ctx.results.add("hostile", `alone: ${name}: machine CPU per request`, per(machineCores), "µs");
  }
}

/**
 * The control: benign reads beside a second client sending the same benign reads at the hostile
 * rate. Its ratio is what any 100 requests a second cost the benign client on this machine (the
 * second load generator's share of the cores included); the hostile ratio can be read against it.
 */
async function controlRounds(
  ctx: ScenarioContext,
  d: Deployment,
  benign: RequestTemplate[],
  concurrency: number,
  rate: number,
  count: number,
): Promise<void> {
  const ratios: number[] = [];
  for (let i = 0; i < count; i++) {
    const alone = await runPhase(ctx, d, {
      label: `control: benign alone (${i + 1})`,
      requests: benign,
      concurrency,
    });
    const [beside]: [Phase, Phase] = await Promise.all([
      runPhase(ctx, d, { label: `control: benign beside benign (${i + 1})`, requests: benign, concurrency }),
      runPhase(ctx, d, {
        label: `control: benign at ${rate}/s (${i + 1})`,
        requests: benign,
        rate,
        concurrency: 64,
        connections: 16,
      }),
    ]);
    ratios.push(ratio(beside, alone));
  }
  ctx.results.add(
    "hostile",
    `control: benign beside ${rate} benign reads/s ÷ alone`,
    medianBy(ratios, (r) => r),
    "ratio",
    undefined,
    `rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}`,
  );
}

/**
 * One unmeasured phase of all three loads at once: the benign reads, the hostile kinds and the
 * x5chain flood, the attackers from a loopback address of their own (the rounds' addresses keep
 * their per-address failure windows fresh).
 */
async function warmUp(
  ctx: ScenarioContext,
  d: Deployment,
  benign: RequestTemplate[],
  concurrency: number,
  kinds: [string, RequestTemplate][],
  hostileRate: number,
  flood: RequestTemplate,
  floodRate: number,
): Promise<void> {
  const from = "127.0.0.9";
  await Promise.all([
    runPhase(ctx, d, { label: "warm-up: benign", requests: benign, concurrency }),
    runPhase(ctx, d, hostileLoad("warm-up: hostile", kinds, hostileRate, from)),
    runPhase(ctx, d, floodLoad("warm-up: x5chain flood", flood, floodRate, from)),
  ]);
}

/** The hostile client: its kinds at `rate` from `from`, every answer a refusal. */
function hostileLoad(
  label: string,
  kinds: [string, RequestTemplate][],
  rate: number,
  from: string,
): PhaseSpec {
  return {
    label,
    requests: kinds.map(([, request]) => request),
    rate,
    concurrency: 64,
    connections: 16,
    localAddress: from,
    // Every answer is a refusal; a 5xx or a dropped connection is what counts as an error.
    okStatus: [400, 401, 404, 408, 413, 429],
  };
}

/**
 * Unauthenticated x5chain floods at an open log (issue 31): ~1 MiB statements of ~2,000
 * certificates each, refused by the chain's bound before any is parsed.
 */
function floodLoad(label: string, flood: RequestTemplate, rate: number, from: string): PhaseSpec {
  return {
    label,
    requests: [flood],
    rate,
    concurrency: 32,
    connections: 8,
    localAddress: from,
    okStatus: [400],
  };
}

/** The tenancy's uuid, and its log opened to registration by signature (no token). */
async function openLog(origin: string, token: string): Promise<string> {
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const keys = (await (await fetch(`${origin}/archivist/v1/scitt/keys`, { headers: auth })).json()) as {
    issuer: string;
  };
  const res = await fetch(`${origin}/archivist/v1/scitt/registration-policy`, {
    method: "PUT",
    headers: auth,
    // The flood meets the check, not the log's own rate.
    body: JSON.stringify({ open: true, requests_per_second: 10_000 }),
  });
  if (!res.ok) throw new Error(`opening the log answered ${res.status}`);
  return keys.issuer.split("/tenant/")[1] as string;
}

/**
 * `hostile`: benign throughput alone, then the same benign load while a hostile client sends
 * refused requests at a fixed rate. The row to watch is the ratio of the two (within 10 %).
 */
export const hostile: Scenario = {
  name: "hostile",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const asset = await createAsset(d, token, "hostile");
    const auth = { authorization: `Bearer ${token}` };
    // Reads: their rate is the server's CPU, which is what a hostile client would take away
    // (a write's rate is mostly its commit's wait).
    const benign: RequestTemplate[] = [
      { method: "GET", path: `/archivist/v2/${asset}`, headers: auth },
      { method: "GET", path: "/archivist/v2/assets?page_size=10", headers: auth },
    ];
    const concurrency = 8;
    const kinds = hostileKinds(token, asset);
    const hostileRate = 100;
    const floodRate = 20;
    const tenant = await openLog(d.origin, token);
    const flood: RequestTemplate = {
      method: "POST",
      path: `/tenants/${tenant}/entries`,
      headers: { "content-type": "application/cose" },
      bodyBase64: Buffer.from(x5chainFlood()).toString("base64"),
    };
    // Alone, under attack, under the flood, in rounds, and alone once more at the end: each ratio
    // compares a phase with the rate alone at its time, read between the alone phases around it
    // (`aloneAt`), and the median round is reported, so a VM whose speed drifts within the
    // scenario (by a third in a minute on some of these machines) moves both sides of a ratio together.
    // Each round's attackers come from a loopback address of their own, as new attackers would:
    // the per-address failure window a round leaves would otherwise answer the next one 429 at once.
    // Every path warm first, as a sustained attack finds them: a fresh service (its own per
    // scenario) runs the benign reads in its first round while V8 is still compiling them, and
    // paths taken ~12 times a second, as each hostile kind is, stay cold for several thousand
    // requests (a read by id at 100/s cost the service ~1.1 ms of CPU in the first 1,000, ~0.45 ms
    // after 4,000; ~0.17 ms at saturation). Measured from cold, a round charged that compilation
    // to the hostile client and moved the ratio by more than the target's margin between runs.
    if (!ctx.opts.quick) await warmUp(ctx, d, benign, concurrency, kinds, hostileRate, flood, floodRate);
    const rounds: Array<Omit<Round, "after">> = [];
    // Five rounds, the median reported: one round's ratio ranged 0.82-1.03 on one machine within
    // an hour, and a median of three still fell either side of the target.
    const count = ctx.opts.quick ? 1 : 5;
    for (let i = 0; i < count; i++) {
      const from = `127.0.0.${10 + i}`;
      const tag = count > 1 ? ` (round ${i + 1})` : "";
      const alone = await runPhase(ctx, d, { label: `benign alone${tag}`, requests: benign, concurrency });
      const [mixed, attack]: [Phase, Phase] = await Promise.all([
        runPhase(ctx, d, { label: `benign under attack${tag}`, requests: benign, concurrency }),
        runPhase(ctx, d, hostileLoad(`hostile${tag}`, kinds, hostileRate, from)),
      ]);
      const [underFlood, flooding]: [Phase, Phase] = await Promise.all([
        runPhase(ctx, d, { label: `benign under x5chain flood${tag}`, requests: benign, concurrency }),
        runPhase(ctx, d, floodLoad(`x5chain flood${tag}`, flood, floodRate, from)),
      ]);
      rounds.push({ alone, mixed, attack, underFlood, flood: flooding });
    }
    const closing = await runPhase(ctx, d, {
      label: "benign alone (closing)",
      requests: benign,
      concurrency,
    });
    const all: Round[] = rounds.map((r, i) => ({ ...r, after: rounds[i + 1]?.alone ?? closing }));
    const notes = (k: 1 | 2) =>
      count > 1
        ? `median of ${count} rounds: ${all.map((r) => roundRatio(r, k).toFixed(2)).join(", ")}`
        : undefined;
    /** Benign throughput under hostile load `k`, against the benign alone of the same round. */
    const addRatio = (name: string, r: Round, k: 1 | 2, under: Phase) =>
      ctx.results.add(
        "hostile",
        name,
        under.result.throughput,
        "req/s",
        { value: aloneAt(r, k), label: "benign alone then" },
        ["must stay ≥ 0.90", notes(k)].filter(Boolean).join("; "),
      );
    const attacked = medianRound(all, 1);
    reportPhase(ctx, "hostile", "benign alone", attacked.alone, "req/s");
    reportPhase(ctx, "hostile", "benign under attack", attacked.mixed, "req/s");
    addRatio("benign under attack / alone", attacked, 1, attacked.mixed);
    reportPhase(ctx, "hostile", "hostile refused", attacked.attack, "req/s", {
      rate: { value: hostileRate, label: "offered" },
    });
    const flooded = medianRound(all, 2);
    reportPhase(ctx, "hostile", "benign under x5chain flood", flooded.underFlood, "req/s");
    addRatio("benign under x5chain flood / alone", flooded, 2, flooded.underFlood);
    reportPhase(ctx, "hostile", "x5chain flood refused", flooded.flood, "req/s", {
      rate: { value: floodRate, label: "offered" },
    });

    if (process.env.BENCH_HOSTILE_EACH) {
      await eachKindAlone(ctx, d, benign[0] as RequestTemplate, kinds, hostileRate);
      await controlRounds(ctx, d, benign, concurrency, hostileRate, count);
    }
  },
};
