import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { USAGE_EXIT_CODE } from "../src/verify/index.js";
import { sha256Rate } from "./micro.js";
import { type BenchOptions, parseBenchArgs, USAGE } from "./options.js";
import { reportOf, writeReport } from "./report.js";
import { Results } from "./results.js";
import { ServiceFactory, scenarioContext } from "./scenario.js";
import { scenarios } from "./scenarios/index.js";
import { disposeAll } from "./service.js";
import { formatTable } from "./table.js";

async function runAll(
  opts: BenchOptions,
  results: Results,
  factory: ServiceFactory,
  saveSoFar: () => void,
): Promise<number> {
  let failed = 0;
  for (const name of opts.scenarios) {
    const t0 = Date.now();
    // Each scenario on a service of its own, stopped before the next starts.
    const ctx = scenarioContext(opts, results, factory);
    ctx.log(`== ${name}`);
    try {
      await scenarios[name].run(ctx);
    } catch (err) {
      // A missing endpoint is n/a inside the scenario; an exception is a real failure.
      failed++;
      const message = err instanceof Error ? err.message : String(err);
      results.add(name, "scenario", null, "", undefined, `failed: ${message.split("\n")[0]}`);
      ctx.log(`${name} failed: ${message}`);
    }
    await ctx.dispose();
    ctx.log(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // The VM's speed moves by half within a run on some machines: a reading after each
    // scenario, with its services stopped, says which scenarios ran in a slow phase.
    results.add("machine", `SHA-256 64 B after ${name}`, sha256Rate(opts.quick ? 50 : 300), "hashes/s");
    // A long run (a 10M curve seeds for many minutes per scenario) keeps what it measured when
    // it is stopped later: each finished scenario's rows go to stderr and the results files now.
    process.stderr.write(`${formatTable(results.rows.filter((r) => r.scenario === name))}\n`);
    saveSoFar();
  }
  return failed;
}

/** `npm run bench` / `archivist bench [scenario...] [flags]`: runs the scenarios and prints the table; returns the exit code. */
export async function runBench(args: string[]): Promise<number> {
  let opts: ReturnType<typeof parseBenchArgs>;
  try {
    opts = parseBenchArgs(args);
  } catch (err) {
    process.stderr.write(`archivist bench: ${(err as Error).message}\n${USAGE}\n`);
    return USAGE_EXIT_CODE;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const startedAt = new Date();
  const results = new Results();
  // Never leave a service process behind, even when the run is interrupted.
  const onSignal = () => void disposeAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let failed: number;
  const factory = new ServiceFactory(opts, (line) => process.stderr.write(`[bench] ${line}\n`));
  const save = () => {
    const report = reportOf(opts, startedAt, results.rows);
    writeReport("bench-results/latest.json", report);
    if (opts.json) writeReport(opts.json, report);
  };
  try {
    failed = await runAll(opts, results, factory, save);
  } finally {
    await factory.dispose();
    await disposeAll();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const report = reportOf(opts, startedAt, results.rows);
  const m = report.meta;
  process.stdout.write(
    `\narchivist bench, ${m.mode} run, ${m.date}, ${m.engine}${m.redis ? " + redis" : ""}, node ${m.node}, ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.elapsedS} s\n\n${formatTable(results.rows)}\n`,
  );
  save();
  return failed ? 1 : 0;
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  runBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`archivist bench: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
