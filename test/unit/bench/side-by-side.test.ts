import { describe, expect, it } from "vitest";
import { type SavedRun, sideBySide } from "../../../bench/side-by-side.js";

const pglite: SavedRun = {
  meta: { date: "d", engine: "pglite", redis: false },
  results: [
    {
      scenario: "ingest",
      metric: "saturation rate",
      value: 2600,
      unit: "events/s",
      limit: 1500,
      limitLabel: "target pglite",
      ratio: 1.733,
    },
    { scenario: "ingest", metric: "saturation p99", value: 41.5, unit: "ms" },
  ],
};
const postgres: SavedRun = {
  meta: { date: "d", engine: "postgres", redis: true },
  results: [
    {
      scenario: "ingest",
      metric: "saturation rate",
      value: 3172,
      unit: "events/s",
      limit: 2500,
      limitLabel: "target postgres",
      ratio: 1.269,
    },
    { scenario: "conserver", metric: "chain | rate", value: null, unit: "", note: "n/a: no Redis" },
  ],
};

describe("sideBySide", () => {
  it("puts each metric on one row with a column per run, ratios and both limits", () => {
    expect(sideBySide([pglite, postgres]).split("\n")).toEqual([
      "| scenario | metric | unit | PGlite | PostgreSQL + Redis | limit or target |",
      "|---|---|---|---:|---:|---|",
      "| ingest | saturation rate | events/s | 2,600 (1.733) | 3,172 (1.269) | 1,500 (target pglite); 2,500 (target postgres) |",
      "| ingest | saturation p99 | ms | 41.5 |  |  |",
      "| conserver | chain \\| rate |  |  | n/a: no Redis |  |",
    ]);
  });
});
