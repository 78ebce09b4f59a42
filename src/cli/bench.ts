import type { Command } from "./commands.js";

export const benchCommand: Command = {
  summary: "run the benchmarks (all scenarios, or those named; --quick; `archivist bench --help` lists them)",
  async run(args) {
    // The harness lives beside the sources (bench/), loaded only when asked for; the package
    // does not ship it (package.json `files`), a clone does.
    let bench: { runBench(args: string[]): Promise<number> };
    try {
      bench = (await import("../../bench/main.js")) as typeof bench;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== "ERR_MODULE_NOT_FOUND" || !/bench[\\/]main\.js/.test(e.message)) throw err;
      throw new Error(
        "the benchmarks are not in the package: run them from a clone of the repository (npm run bench)",
      );
    }
    return bench.runBench(args);
  },
};
