import type { Command } from "./commands.js";

export const benchCommand: Command = {
  summary:
    "run the benchmarks (scenarios: core tokens ingest afe list receipts conserver; --quick, --json out.json)",
  async run(args) {
    // The harness lives beside the sources (bench/), loaded only when asked for.
    const { runBench } = (await import("../../bench/main.js")) as {
      runBench(args: string[]): Promise<number>;
    };
    return runBench(args);
  },
};
