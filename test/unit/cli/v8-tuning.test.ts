import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PROBE = fileURLToPath(new URL("../../fixtures/v8/pretenure-probe.mjs", import.meta.url));
const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));

/** V8's pretenuring decisions while the probe runs, as its own trace prints them. */
function decisions(mode: "tuned" | "default"): string[] {
  const r = spawnSync(
    process.execPath,
    [
      "--trace-pretenuring",
      "--trace-pretenuring-statistics",
      ...(mode === "tuned" ? ["--import", "tsx"] : []),
      PROBE,
      mode,
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("kept 2000000");
  return r.stdout.split("\n").filter((l) => l.includes("pretenuring:"));
}

describe("the CLI's V8 settings", { timeout: 240_000 }, () => {
  it("without them, the probe makes V8 pretenure a site (the probe can tell)", () => {
    expect(decisions("default").some((l) => l.includes("=> tenure"))).toBe(true);
  });

  it("with them, V8 makes no pretenuring decision at all", () => {
    expect(decisions("tuned")).toEqual([]);
  });

  it("the CLI's entry applies them before importing anything else", () => {
    const imports = readFileSync(MAIN, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("import "));
    expect(imports[0]).toBe('import "./v8-tuning.js";');
  });
});
