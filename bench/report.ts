import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import type { BenchOptions } from "./options.js";
import type { Row } from "./results.js";

/** The JSON document of a run: how it was made, and every row of the table. */
export interface Report {
  meta: {
    date: string;
    mode: "quick" | "default" | "full";
    scenarios: string[];
    durationS: number;
    listEvents: number;
    afeEvents: number;
    engine: "postgres" | "pglite";
    redis: boolean;
    node: string;
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    elapsedS: number;
  };
  results: Row[];
}

/** Describes the run for the JSON report. */
export function reportOf(opts: BenchOptions, startedAt: Date, rows: Row[]): Report {
  return {
    meta: {
      date: startedAt.toISOString(),
      mode: opts.mode,
      scenarios: opts.scenarios,
      durationS: opts.durationS,
      listEvents: opts.listEvents,
      afeEvents: opts.afeEvents,
      engine: opts.databaseUrl ? "postgres" : "pglite",
      redis: opts.redisUrl !== undefined,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "",
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      elapsedS: Math.round((Date.now() - startedAt.getTime()) / 1000),
    },
    results: rows,
  };
}

/** Writes the report as JSON (creating the directory). */
export function writeReport(path: string, report: Report): void {
  const full = resolve(path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, `${JSON.stringify(report, null, 2)}\n`);
}
