import { describe, expect, it } from "vitest";
import { epochMs } from "../../../bench/commit-latency.js";
import { parseBenchArgs } from "../../../bench/options.js";
import { Results } from "../../../bench/results.js";
import { medianInterval, percentile, perSecond, ratio, round, summarize } from "../../../bench/stats.js";
import { formatTable } from "../../../bench/table.js";

describe("percentile (nearest rank)", () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);

  it("returns an observed sample", () => {
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile(sorted, 0)).toBe(1);
  });

  it("handles one sample and none", () => {
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("summarize", () => {
  it("sorts numerically, not as text", () => {
    const s = summarize([10, 9, 100, 1, 2]);
    expect(s).toMatchObject({ count: 5, p50: 9, p99: 100, max: 100, mean: 24.4 });
  });

  it("leaves the input unsorted", () => {
    const input = [3, 1, 2];
    summarize(input);
    expect(input).toEqual([3, 1, 2]);
  });
});

describe("ratio, perSecond, round", () => {
  it("divides only by a positive finite limit", () => {
    expect(ratio(50, 200)).toBe(0.25);
    expect(ratio(50, 0)).toBeUndefined();
    expect(ratio(50, undefined)).toBeUndefined();
    expect(ratio(null, 10)).toBeUndefined();
    expect(ratio(Number.NaN, 10)).toBeUndefined();
  });

  it("turns counts and milliseconds into rates", () => {
    expect(perSecond(500, 250)).toBe(2000);
    expect(perSecond(5, 0)).toBe(0);
  });

  it("keeps three significant digits below 100", () => {
    expect(round(1.23456)).toBe(1.23);
    expect(round(1234.56)).toBe(1235);
  });
});

describe("rows and table", () => {
  it("attaches the ratio to its limit and prints n/a rows", () => {
    const r = new Results();
    r.add("tokens", "token rate", 1200, "tokens/s", { value: 2400, label: "RS256 sign/s" });
    r.na("receipts", "receipt", "endpoint not available");
    expect(r.rows[0]).toMatchObject({ ratio: 0.5, limit: 2400 });
    const table = formatTable(r.rows);
    expect(table).toContain("0.50");
    expect(table).toContain("n/a: endpoint not available");
  });
});

describe("bench options and timestamps", () => {
  it("parses scenarios and flags", () => {
    const o = parseBenchArgs(["core", "list", "--quick", "--list-events", "5000"], {});
    expect(o).toMatchObject({ scenarios: ["core", "list"], quick: true, durationS: 1.5, listEvents: 5000 });
    expect(() => parseBenchArgs(["nope"], {})).toThrow(/unknown scenario/);
    // Issue 74: the default run gives each scenario's headline in minutes; --full is the long run.
    expect(parseBenchArgs([], {})).toMatchObject({
      mode: "default",
      quick: true,
      durationS: 3,
      listEvents: 100_000,
    });
    expect(parseBenchArgs(["--full"], {})).toMatchObject({ mode: "full", quick: false, durationS: 10 });
    expect(() => parseBenchArgs(["--quick", "--full"], {})).toThrow(/one or the other/);
    expect(parseBenchArgs(["afe", "--full"], {})).toMatchObject({ afeEvents: 1_000_000 });
    expect(parseBenchArgs(["afe"], {})).toMatchObject({ afeEvents: 100_000 });
    expect(parseBenchArgs(["afe", "--quick"], {})).toMatchObject({ afeEvents: 20_000 });
    expect(parseBenchArgs(["afe", "--afe-events", "0"], {})).toMatchObject({ afeEvents: 0 });
    expect(() => parseBenchArgs(["afe", "--afe-events", "-1"], {})).toThrow(/--afe-events/);
  });

  it("reads epoch ms, epoch seconds and RFC 3339", () => {
    expect(epochMs(1_700_000_000_000)).toBe(1_700_000_000_000);
    expect(epochMs("1700000000")).toBe(1_700_000_000_000);
    expect(epochMs("2023-11-14T22:13:20Z")).toBe(1_700_000_000_000);
    expect(epochMs("")).toBeUndefined();
  });
});

describe("medianInterval (order statistics, distribution-free)", () => {
  it("takes the shortest pair of order statistics that covers the median at the level", () => {
    // n = 9: [x(2), x(8)] covers with 1 − 2·10/512; [x(3), x(7)] only 1 − 2·46/512 = 0.82.
    expect(medianInterval([9, 1, 8, 2, 7, 3, 6, 4, 5])).toEqual({ low: 2, high: 8, coverage: 1 - 20 / 512 });
    // n = 11: [x(2), x(10)], 1 − 2·12/2048.
    const eleven = Array.from({ length: 11 }, (_, i) => i + 1);
    expect(medianInterval(eleven)).toEqual({ low: 2, high: 10, coverage: 1 - 24 / 2048 });
    // A lower level narrows it: n = 9 at 80 % is [x(3), x(7)].
    expect(medianInterval([1, 2, 3, 4, 5, 6, 7, 8, 9], 0.8)).toMatchObject({ low: 3, high: 7 });
  });

  it("says how little too few samples give", () => {
    expect(medianInterval([0.9, 1.1, 1.0, 0.95, 1.05])).toEqual({
      low: 0.9,
      high: 1.1,
      coverage: 1 - 2 / 32,
    });
    expect(medianInterval([1, 2])).toEqual({ low: 1, high: 2, coverage: 0.5 });
    expect(medianInterval([3])).toEqual({ low: 3, high: 3, coverage: 0 });
    expect(medianInterval([])).toBeUndefined();
  });

  it("covers the true median about as often as it says, on draws from a skewed distribution", () => {
    // Exponential(1): median ln 2. Deterministic draws (a linear congruential generator).
    let seed = 12345;
    const uniform = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed + 0.5) / 2 ** 31;
    };
    let hits = 0;
    const trials = 4000;
    for (let t = 0; t < trials; t++) {
      const draws = Array.from({ length: 11 }, () => -Math.log(uniform()));
      const r = medianInterval(draws);
      if (r && r.low <= Math.LN2 && Math.LN2 <= r.high) hits++;
    }
    expect(hits / trials).toBeGreaterThan(0.975);
    expect(hits / trials).toBeLessThan(0.997);
  });
});
