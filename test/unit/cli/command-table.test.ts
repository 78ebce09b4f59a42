import { describe, expect, it } from "vitest";
import { commands } from "../../../src/cli/commands.js";
import { fullProgram, runCli } from "../../../src/cli/program.js";
import { PARTITIONED_TABLES } from "../../../src/store/archive/partitioning.js";
import { runCli as runInProcess } from "../../helpers/cli-output.js";
import { closure, importGraph } from "../../helpers/import-graph.js";

// `archivist` lists its commands from a table (src/cli/commands.ts) and loads the module of the one
// it runs: `archivist --help` or `archivist verify bundle …` never loads the server. Held here
// through the import graph, not by a clock.
const graph = importGraph(["src", "plugins", "bench"]);
const TABLE = "src/cli/commands.ts";

describe("the command table", () => {
  const modules = graph.internal.filter((e) => e.from === TABLE && e.lazy).map((e) => e.to);

  it("loads each command's module with import(), none up front", () => {
    expect(new Set(modules).size).toBeGreaterThanOrEqual(14);
    expect(modules).toContain("src/cli/serve.ts");
    expect(modules).toContain("src/cli/verify-public.ts");
    const eager = graph.internal.filter((e) => e.from === TABLE && !e.lazy).map((e) => e.to);
    expect(eager).toEqual(["src/cli/command.ts"]);
  });

  it("starting the CLI loads no command's module, and not the server", () => {
    const started = closure(graph, ["src/cli/main.ts"], { eager: true });
    expect(started).toContain(TABLE);
    expect(started.filter((f) => modules.includes(f) || f === "src/server.ts")).toEqual([]);
  });

  it("`archivist verify …` loads the verifier's commands, not the server", () => {
    const verify = closure(graph, ["src/cli/verify-public.ts"], { eager: true });
    expect(verify).not.toContain("src/server.ts");
    expect(verify).not.toContain("src/cli/serve.ts");
  });

  it("lists the commands as their declared selves would be listed (`archivist --help`)", async () => {
    const listed = await runInProcess(runCli, ["--help"]);
    expect(listed.code).toBe(0);
    const declared: string[] = [];
    const full = await fullProgram(() => undefined);
    full.configureOutput({ writeOut: (s) => declared.push(s) });
    full.outputHelp();
    expect(listed.out).toBe(declared.join(""));
    for (const name of Object.keys(commands)) expect(listed.out).toContain(`  ${name}`);
  });

  it("names the tables `archivist partition` partitions, as the store has them", () => {
    expect(commands.partition?.summary).toContain(`(${PARTITIONED_TABLES.join(", ")})`);
  });

  it("takes no property of an object for a command (`archivist constructor`: 64)", async () => {
    for (const args of [["constructor"], ["help", "toString"]]) {
      const r = await runInProcess(runCli, args);
      expect(r.code, r.err).toBe(64);
      expect(r.err).toMatch(/^archivist: unknown command '(constructor|toString)'/);
    }
  });
});
