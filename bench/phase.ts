import type { LoadResult, LoadSpec } from "./load-spec.js";
import { runLoadProcess } from "./loadgen-client.js";
import { meter, type OwnCpu, type ProcUsage } from "./proc.js";
import type { Limit } from "./results.js";
import type { ScenarioContext } from "./scenario.js";
import type { Deployment } from "./service.js";

/** A load phase's measurements: the load generator's view and the server process's usage. */
export interface Phase {
  result: LoadResult;
  usage: ProcUsage;
}

/** The spec fields a scenario chooses; the rest follow from the run's options. */
export type PhaseSpec = Pick<LoadSpec, "label" | "requests"> & Partial<LoadSpec>;

/**
 * Runs one bounded load phase against a deployment from the separate load-generator process;
 * `own`: also read that deployment's own processes (`ProcUsage.ownCores`).
 */
export async function runPhase(
  ctx: ScenarioContext,
  d: Deployment,
  spec: PhaseSpec,
  own?: OwnCpu,
): Promise<Phase> {
  const concurrency = spec.concurrency ?? (ctx.opts.quick ? 16 : 32);
  const full: LoadSpec = {
    origin: d.origin,
    connections: spec.connections ?? concurrency,
    durationMs: ctx.opts.durationS * 1000,
    maxRequests: ctx.opts.quick ? 100_000 : 2_000_000,
    warmupMs: ctx.opts.quick ? 300 : 1000,
    ...spec,
    concurrency,
  };
  const rate = full.rate ? ` at ${Math.round(full.rate)}/s offered` : `, ${concurrency} in flight`;
  ctx.log(`${spec.label}: ${full.durationMs / 1000}s${rate}`);
  const stop = meter(d.pid, own);
  const result = await runLoadProcess(full);
  return { result, usage: stop() };
}

function errorNote(r: LoadResult): string | undefined {
  if (r.errors === 0) return undefined;
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(" ");
  return `${r.errors} errors (${statuses}); first: ${r.firstError ?? "?"}`.slice(0, 200);
}

/** Adds the rows of a phase: rate, p50, p99 (each compared with its limit if given), server CPU and peak RSS. */
export function reportPhase(
  ctx: ScenarioContext,
  scenario: string,
  name: string,
  p: Phase,
  unit: string,
  limits: { rate?: Limit; p99?: Limit } = {},
): void {
  const limit = limits.rate;
  const r = p.result;
  const add = ctx.results.add.bind(ctx.results);
  if (r.ok === 0) {
    add(scenario, `${name} rate`, null, unit, limit, errorNote(r) ?? "no successful request");
    return;
  }
  add(scenario, `${name} rate`, r.throughput, unit, limit, errorNote(r));
  add(scenario, `${name} p50`, r.latency.p50, "ms");
  add(
    scenario,
    `${name} p99`,
    r.latency.p99,
    "ms",
    limits.p99,
    r.late ? `${r.late} waited for the in-flight cap` : undefined,
  );
  if (p.usage.cores !== undefined) add(scenario, `${name} server CPU`, p.usage.cores, "cores");
  if (p.usage.machineCores !== undefined)
    add(
      scenario,
      `${name} machine CPU`,
      p.usage.machineCores,
      "cores",
      undefined,
      "server + loadgen + database",
    );
  if (p.usage.peakRssMiB !== undefined) add(scenario, `${name} server peak RSS`, p.usage.peakRssMiB, "MiB");
}
