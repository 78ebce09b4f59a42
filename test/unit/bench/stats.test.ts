import { describe, expect, it } from "vitest";
import { epochMs } from "../../../bench/commit-latency.js";
import { parseBenchArgs } from "../../../bench/options.js";
import { Results } from "../../../bench/results.js";
import { percentile, perSecond, ratio, round, summarize } from "../../../bench/stats.js";
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
    expect(parseBenchArgs(["afe"], {})).toMatchObject({ afeEvents: 1_000_000 });
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
