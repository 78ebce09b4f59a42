import type { BenchOptions, ScenarioName } from "./options.js";
import type { Results } from "./results.js";
import { Deployment, type ServiceRuntime } from "./service.js";

/** What a scenario gets: the options, where to put rows, progress output and a service factory. */
export interface ScenarioContext {
  opts: BenchOptions;
  results: Results;
  log(line: string): void;
  /**
   * This scenario's service, started on first use and stopped when the scenario ends: no scenario
   * runs beside what an earlier one left behind (its queues, its seals, its million rows).
   */
  service(): Promise<Deployment>;
  /**
   * Another fresh service with settings of its own (e.g. witnesses), stopped with the scenario's;
   * `runtime`: another tree's built CLI or other node arguments to run it with (`pair`).
   */
  extraService(env: Record<string, string>, runtime?: ServiceRuntime): Promise<Deployment>;
}

/** One benchmark scenario (a file in bench/scenarios/). */
export interface Scenario {
  name: ScenarioName;
  run(ctx: ScenarioContext): Promise<void>;
}

/**
 * Starts the run's services. The first is provisioned, stopped and kept as a template; each
 * scenario's service starts from a copy of it (its data directory, a `create database … template`
 * on PostgreSQL), so a fresh service per scenario skips initdb and migrations. A service of
 * another tree's CLI starts from empty instead.
 */
export class ServiceFactory {
  private template: Promise<Deployment> | undefined;

  constructor(
    private readonly opts: BenchOptions,
    private readonly log: (line: string) => void,
  ) {}

  async fresh(env: Record<string, string> = {}, runtime: ServiceRuntime = {}): Promise<Deployment> {
    const base = { databaseUrl: this.opts.databaseUrl, redisUrl: this.opts.redisUrl };
    // Another tree's service migrates its own database from empty, with a data directory and a
    // bootstrap file of its own: this tree's template holds this tree's schema, which an older
    // tree does not know ("relation signing_keys does not exist").
    if (runtime.cli) return Deployment.create({ ...base, env, runtime });
    this.template ??= (async () => {
      this.log(`preparing the services (${engineOf(this.opts)}${this.opts.redisUrl ? " + redis" : ""})`);
      const t = await Deployment.create(base);
      await t.stop();
      return t;
    })();
    const template = await this.template;
    return Deployment.create({ ...base, env, template, runtime });
  }

  /** Drops the template (the scenarios' own services are disposed as each ends). */
  async dispose(): Promise<void> {
    const t = this.template;
    this.template = undefined;
    await (await t?.catch(() => undefined))?.dispose();
  }
}

/** The context one scenario runs in; `dispose` stops the services it started. */
export function scenarioContext(
  opts: BenchOptions,
  results: Results,
  factory: ServiceFactory,
): ScenarioContext & { dispose(): Promise<void> } {
  const started: Array<Promise<Deployment>> = [];
  let own: Promise<Deployment> | undefined;
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const start = (env?: Record<string, string>, runtime?: ServiceRuntime) => {
    const d = factory.fresh(env, runtime);
    started.push(d);
    return d;
  };
  return {
    opts,
    results,
    log,
    async service() {
      own ??= start();
      const d = await own;
      await d.ensureRunning();
      return d;
    },
    extraService: (env, runtime) => start(env, runtime),
    async dispose() {
      const all = await Promise.allSettled(started);
      await Promise.all(all.map((r) => (r.status === "fulfilled" ? r.value.dispose() : undefined)));
    },
  };
}

/** "postgres" or "pglite": the engine every service of this run uses. */
export function engineOf(opts: BenchOptions): "postgres" | "pglite" {
  return opts.databaseUrl ? "postgres" : "pglite";
}
