import type { Command } from "./command.js";

interface BenchModule {
  runBench(args: string[]): Promise<number>;
}

/** What `bench --help` says where the harness is not shipped (the package): where it runs. */
const NOT_SHIPPED =
  "the benchmarks are not in the package: run them from a clone of the repository (npm run bench)";

/**
 * Runs the benchmarks with the harness `load` finds. The package does not ship it (package.json
 * `files`): there `--help` still answers (0) and says where they run; a run fails saying so.
 */
export async function runBenchCommand(args: string[], load: () => Promise<BenchModule>): Promise<number> {
  let bench: BenchModule;
  try {
    bench = await load();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== "ERR_MODULE_NOT_FOUND" || !/bench[\\/]main\.js/.test(e.message)) throw err;
    if (args.includes("--help") || args.includes("-h")) {
      process.stdout.write(`usage: archivist bench [scenario ...] [--quick]\n\n${NOT_SHIPPED}.\n`);
      return 0;
    }
    throw new Error(NOT_SHIPPED);
  }
  return bench.runBench(args);
}

export const benchCommand: Command = {
  // The harness lives beside the sources (bench/), loaded only when asked for.
  run: (args) => runBenchCommand(args, async () => (await import("../../bench/main.js")) as BenchModule),
};
