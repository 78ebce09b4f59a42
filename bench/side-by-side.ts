import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Row } from "./results.js";
import { num } from "./table.js";

/** One saved run (`--json` or bench-results/latest.json), as much of it as the table needs. */
export interface SavedRun {
  meta: { date: string; engine: string; redis?: boolean; mode?: string };
  results: Row[];
}

function cell(r: Row | undefined): string {
  if (!r) return "";
  if (r.value === null) return r.note ?? "n/a";
  return r.ratio === undefined ? num(r.value) : `${num(r.value)} (${r.ratio})`;
}

/** The run's column heading: its engine, and Redis when it used it. */
export function runLabel(run: SavedRun): string {
  const engine = run.meta.engine === "postgres" ? "PostgreSQL" : "PGlite";
  return run.meta.redis ? `${engine} + Redis` : engine;
}

/**
 * A markdown table of several runs side by side, for docs/performance.md: one row per
 * (scenario, metric) in first-seen order, a column per run with `value (ratio)`, and each
 * run's limit where it has one.
 */
export function sideBySide(runs: SavedRun[]): string {
  const key = (r: Row) => `${r.scenario}\u0000${r.metric}`;
  const order: Row[] = [];
  const seen = new Set<string>();
  for (const run of runs)
    for (const r of run.results)
      if (!seen.has(key(r))) {
        seen.add(key(r));
        order.push(r);
      }
  const byRun = runs.map((run) => new Map(run.results.map((r) => [key(r), r])));
  const esc = (s: string) => s.replaceAll("|", "\\|");
  const lines = [
    `| scenario | metric | unit | ${runs.map(runLabel).join(" | ")} | limit or target |`,
    `|---|---|---|${runs.map(() => "---:").join("|")}|---|`,
  ];
  for (const r of order) {
    const mine = byRun.map((m) => m.get(key(r)));
    const limits = [
      ...new Set(
        mine.filter((x) => x?.limit !== undefined).map((x) => `${num(x?.limit)} (${x?.limitLabel ?? ""})`),
      ),
    ];
    const unit = mine.find((x) => x?.unit)?.unit ?? "";
    lines.push(
      `| ${r.scenario} | ${esc(r.metric)} | ${unit} | ${mine.map((x) => esc(cell(x))).join(" | ")} | ${esc(limits.join("; "))} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write("usage: node dist/bench/side-by-side.js <run.json>...\n");
    process.exit(2);
  }
  const runs = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as SavedRun);
  process.stdout.write(`${sideBySide(runs)}\n`);
}
