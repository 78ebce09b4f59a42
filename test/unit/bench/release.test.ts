import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GUARDED, guardVerdict, releases } from "../../../bench/release.js";
import type { Row } from "../../../bench/results.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");

describe("releases", () => {
  it("package.json's version is the CHANGELOG's latest release", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    const [latest] = releases(changelog);
    expect(latest?.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.version).toBe(latest?.version);
    expect(lock.version).toBe(latest?.version);
    expect(lock.packages[""]?.version).toBe(latest?.version);
  });

  it("every release names the commit it ends at, and its tag (where this clone has it) is that commit", () => {
    const all = releases(changelog);
    expect(all.length).toBeGreaterThan(0);
    for (const r of all) {
      expect(r.commit, r.version).toMatch(/^[0-9a-f]{7,40}$/);
      // Tags may not reach a CI clone: the guard then falls back to the named commit.
      const tag = spawnSync("git", ["rev-parse", "--verify", "--quiet", `v${r.version}^{commit}`], {
        cwd: root,
        encoding: "utf8",
      });
      if (tag.status === 0)
        expect(tag.stdout.trim().startsWith(r.commit as string), `v${r.version}`).toBe(true);
    }
  });

  it("reads the newest heading first, not Unreleased, and the commit from its own paragraph only", () => {
    const text = [
      "# Changelog",
      "## Unreleased",
      "Issues from `aaaaaaa` (ends at `bbbbbbb`).",
      "## [1.2.0] - 2026-01-02",
      "",
      "Issue #9 (ends at",
      "`c0ffee1`): faster.",
      "",
      "### Added",
      "- something (ends at `ddddddd`)",
      "## [1.1.0] - 2026-01-01",
      "No commit named.",
      "",
      "- a line (ends at `eeeeeee`)",
    ].join("\n");
    // A heading's paragraph wraps as CHANGELOG.md's do; a list below it is not its paragraph.
    expect(releases(text)).toEqual([
      { version: "1.2.0", commit: "c0ffee1" },
      { version: "1.1.0", commit: undefined },
    ]);
  });
});

/** `pair`'s summary rows for one measure, as the bench writes them. */
function rowsFor(name: string, mine: number | null, theirs: number | null): Row[] {
  return [
    {
      scenario: "pair",
      metric: `${name}: this tree's machine CPU per event (median of the rounds)`,
      value: mine,
      unit: "µs",
    },
    {
      scenario: "pair",
      metric: `${name}: other tree's machine CPU per event (median of the rounds)`,
      value: theirs,
      unit: "µs",
    },
  ];
}

describe("the release guard's verdict", () => {
  const all = (mine: number, theirs: number) => GUARDED.flatMap((n) => rowsFor(n, mine, theirs));

  it("passes at 1.9 times the release's machine CPU per record, fails at 2.1", () => {
    expect(guardVerdict(all(190, 100)).ok).toBe(true);
    const over = guardVerdict([
      ...rowsFor("ingest", 210, 100),
      ...GUARDED.slice(1).flatMap((n) => rowsFor(n, 100, 100)),
    ]);
    expect(over.ok).toBe(false);
    const failed = over.lines.filter((l) => !l.ok);
    expect(failed.map((l) => l.name)).toEqual(["ingest"]);
    // The message names the load and both numbers.
    expect(failed[0]?.message).toContain("ingest");
    expect(failed[0]?.message).toContain("210 µs");
    expect(failed[0]?.message).toContain("100 µs");
    expect(failed[0]?.message).toContain("2.10×");
  });

  it("fails loudly on a number missing, null or zero", () => {
    const missing = guardVerdict(GUARDED.filter((n) => n !== "reads").flatMap((n) => rowsFor(n, 100, 100)));
    expect(missing.ok).toBe(false);
    expect(missing.lines.find((l) => l.name === "reads")?.message).toMatch(/reads: .*not measured.*no row/);
    const nulled = guardVerdict([
      ...rowsFor("ingest", 100, null),
      ...GUARDED.slice(1).flatMap((n) => rowsFor(n, 100, 100)),
    ]);
    expect(nulled.ok).toBe(false);
    expect(nulled.lines[0]?.message).toMatch(/ingest: .*not measured/);
    expect(guardVerdict(all(100, 0)).ok).toBe(false);
    expect(guardVerdict([]).ok).toBe(false);
  });
});
