import type { Command } from "./commands.js";

export const benchCommand: Command = {
  summary: "run the benchmarks (all scenarios, or those named; --quick; `archivist bench --help` lists them)",
  async run(args) {
    // The harness lives beside the sources (bench/), loaded only when asked for.
    const { runBench } = (await import("../../bench/main.js")) as {
      runBench(args: string[]): Promise<number>;
    };
    return runBench(args);
  },
};
