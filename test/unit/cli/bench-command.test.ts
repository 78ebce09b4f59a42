import { describe, expect, it } from "vitest";
import { runBenchCommand } from "../../../src/cli/bench.js";
import { runCli as runInProcess } from "../../helpers/cli-output.js";

// The package ships no benchmark harness (dist/bench is left out): loading it fails as Node
// fails on a missing module.
const notShipped = async (): Promise<never> => {
  throw Object.assign(
    new Error("Cannot find module '/x/dist/bench/main.js' imported from /x/dist/src/cli/bench.js"),
    {
      code: "ERR_MODULE_NOT_FOUND",
    },
  );
};

describe("archivist bench where the package does not ship the harness", () => {
  it("answers --help with exit 0, saying where the benchmarks run", async () => {
    const r = await runInProcess((args) => runBenchCommand(args, notShipped), ["--help"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^usage: archivist bench/);
    expect(r.out).toContain("run them from a clone of the repository (npm run bench)");
  });

  it("refuses a run, saying the same", async () => {
    await expect(runBenchCommand(["--quick"], notShipped)).rejects.toThrow(/not in the package/);
  });

  it("passes the arguments on to the harness where it is", async () => {
    let seen: string[] = [];
    const code = await runBenchCommand(["--help"], async () => ({
      runBench: async (args) => {
        seen = args;
        return 0;
      },
    }));
    expect([code, seen]).toEqual([0, ["--help"]]);
  });
});
