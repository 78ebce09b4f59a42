import type { BenchOptions, ScenarioName } from "./options.js";
import type { Results } from "./results.js";
import { Deployment } from "./service.js";

/** What a scenario gets: the options, where to put rows, progress output and a service factory. */
export interface ScenarioContext {
  opts: BenchOptions;
  results: Results;
  log(line: string): void;
  /**
   * The run's service, started on first use and shared by the HTTP scenarios: a first start
   * (initdb and migrations) costs 5 to 15 s here, a fresh one per scenario would cost a quick run its budget.
   */
  service(): Promise<Deployment>;
}

/** One benchmark scenario (a file in bench/scenarios/). */
export interface Scenario {
  name: ScenarioName;
  run(ctx: ScenarioContext): Promise<void>;
}

/** The context scenarios run in. */
export function scenarioContext(opts: BenchOptions, results: Results): ScenarioContext {
  let shared: Promise<Deployment> | undefined;
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  return {
    opts,
    results,
    log,
    async service() {
      if (!shared) log(`starting the service (${engineOf(opts)}${opts.redisUrl ? " + redis" : ""})`);
      shared ??= Deployment.create({ databaseUrl: opts.databaseUrl, redisUrl: opts.redisUrl });
      const d = await shared;
      await d.ensureRunning();
      return d;
    },
  };
}

/** "postgres" or "pglite": the engine every service of this run uses. */
export function engineOf(opts: BenchOptions): "postgres" | "pglite" {
  return opts.databaseUrl ? "postgres" : "pglite";
}
