import { parseArgs } from "node:util";

/** Every scenario, in run order; `list` last, its million seeded rows would sit under every later one. */
const SCENARIOS = [
  "core",
  "tokens",
  "ingest",
  "afe",
  "receipts",
  "evidence",
  "pages",
  "trees",
  "tlog",
  "conserver",
  "hostile",
  "statements",
  "scaleout",
  "pair",
  "vindex",
  "list",
] as const;
/** A scenario's name (a positional argument of the bench). */
export type ScenarioName = (typeof SCENARIOS)[number];

/** What a bench run was asked to do. */
export interface BenchOptions {
  scenarios: ScenarioName[];
  /**
   * `quick`: CI's smoke run; `default`: each scenario's headline in a few minutes; `full`: every
   * scenario at the sizes docs/performance.md reports.
   */
  mode: "quick" | "default" | "full";
  /** Scenarios' own sizes (records, rounds, warm-up) at their small setting: every mode but `full`. */
  quick: boolean;
  /** Length of each measured load phase, seconds. */
  durationS: number;
  /** Length of each in-process micro-benchmark, milliseconds. */
  microMs: number;
  listEvents: number;
  /** Asset-free events seeded by SQL under the afe searches (0: only those the create phase made). */
  afeEvents: number;
  /** Statements (template-carrying asset events) seeded by SQL under the statement searches. */
  statements: number;
  json: string | undefined;
  /** PostgreSQL admin URL (a fresh database is made per run) or undefined for PGlite. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/** Usage text of `npm run bench` / `archivist bench`. */
export const USAGE = `usage: archivist bench [scenario...] [--quick | --full] [--duration <s>] [--list-events <n>] [--afe-events <n>] [--statements <n>] [--json <file>]
scenarios: ${SCENARIOS.join(", ")} (default: all)
  (default)        each scenario's headline: 3 s per phase, small N, 100,000 seeded rows
  --full           every scenario at the sizes docs/performance.md reports: 10 s per phase, 1,000,000 seeded rows
  --quick          CI smoke run: 1.5 s per phase, small N, 20,000 seeded rows
  --duration <s>   seconds per measured load phase (default 3, full 10, quick 1.5)
  --list-events n  events seeded for the list scenario (default 100,000, full 1,000,000, quick 20,000)
  --afe-events n   asset-free events seeded on the afe search trail (as --list-events; 0: none)
  --statements n   statements seeded for the statements scenario (as --list-events)
  --json <file>    also write the results there (bench-results/latest.json is always written)
DATABASE_URL / REDIS_URL in the environment: run on PostgreSQL (a fresh database per run) and Redis.`;

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got "${raw}"`);
  return n;
}

/** Parses the bench command line; throws with a readable message on a bad flag or scenario. */
export function parseBenchArgs(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): BenchOptions & { help: boolean } {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      quick: { type: "boolean" },
      full: { type: "boolean" },
      duration: { type: "string" },
      "list-events": { type: "string" },
      "afe-events": { type: "string" },
      statements: { type: "string" },
      json: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  for (const p of positionals)
    if (!(SCENARIOS as readonly string[]).includes(p))
      throw new Error(`unknown scenario "${p}" (one of ${SCENARIOS.join(", ")})`);
  if (values.quick && values.full) throw new Error("--quick and --full: one or the other");
  const mode = values.quick ? "quick" : values.full ? "full" : "default";
  const pick = <T>(quick: T, standard: T, full: T): T =>
    mode === "quick" ? quick : mode === "full" ? full : standard;
  const seeded = pick(20_000, 100_000, 1_000_000);
  const durationS = positiveNumber("--duration", values.duration) ?? pick(1.5, 3, 10);
  return {
    help: values.help === true,
    scenarios: positionals.length ? (positionals as ScenarioName[]) : [...SCENARIOS],
    mode,
    quick: mode !== "full",
    durationS,
    microMs: pick(200, 500, 1000),
    listEvents: Math.floor(positiveNumber("--list-events", values["list-events"]) ?? seeded),
    afeEvents: Math.floor(
      values["afe-events"] === "0" ? 0 : (positiveNumber("--afe-events", values["afe-events"]) ?? seeded),
    ),
    statements: Math.floor(positiveNumber("--statements", values.statements) ?? seeded),
    json: values.json,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
  };
}
