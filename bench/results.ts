import { ratio, round } from "./stats.js";

/** One measured number (or an n/a line) of a scenario, as printed and as written to JSON. */
export interface Row {
  scenario: string;
  metric: string;
  /** null when the metric could not be measured (see note). */
  value: number | null;
  unit: string;
  /** The physical limit or design target this number is compared with. */
  limit?: number;
  /** Where the limit comes from, e.g. "RS256 sign/s (core)" or "target". */
  limitLabel?: string;
  ratio?: number;
  note?: string;
}

/** A limit for a row: the number and where it comes from. */
export interface Limit {
  value: number | undefined;
  label: string;
}

/** Collects rows as scenarios produce them, and the physical limits measured along the way. */
export class Results {
  readonly rows: Row[] = [];
  /** Physical limits measured in `core`, reused as denominators by the HTTP scenarios. */
  readonly limits = new Map<string, number>();

  /** Adds a measured value, with its ratio to `limit` when one applies. */
  add(
    scenario: string,
    metric: string,
    value: number | null,
    unit: string,
    limit?: Limit,
    note?: string,
  ): void {
    const row: Row = { scenario, metric, value: value === null ? null : round(value), unit };
    if (limit?.value !== undefined) {
      row.limit = round(limit.value);
      row.limitLabel = limit.label;
      const r = ratio(value, limit.value);
      if (r !== undefined) row.ratio = Number(r.toFixed(3));
    }
    if (note) row.note = note;
    this.rows.push(row);
  }

  /** Records that a scenario (or one metric of it) could not run, and why. */
  na(scenario: string, metric: string, reason: string): void {
    this.rows.push({ scenario, metric, value: null, unit: "", note: `n/a: ${reason}` });
  }
}
