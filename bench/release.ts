import type { Row } from "./results.js";

/** A released version as CHANGELOG.md names it: `## [x.y.z] - date`, and the commit it ends at. */
export interface Release {
  version: string;
  /** The commit its heading paragraph names ("(ends at `f133781`)"), if it names one. */
  commit: string | undefined;
}

/**
 * The releases CHANGELOG.md lists, newest first (`## [Unreleased]` is none). Each release is a
 * git tag `v<version>`; a clone without tags (CI's may have none) finds the release's commit in
 * the first paragraph under its heading instead.
 */
export function releases(changelog: string): Release[] {
  const out: Release[] = [];
  const lines = changelog.split("\n");
  lines.forEach((line, i) => {
    const m = /^## \[(\d+\.\d+\.\d+)\]/.exec(line);
    if (!m) return;
    let paragraph = "";
    for (let j = i + 1; j < lines.length && !/^#+ /.test(lines[j] as string); j++) {
      const text = (lines[j] as string).trim();
      if (text === "" && paragraph) break;
      if (text) paragraph += ` ${text}`;
    }
    out.push({ version: m[1] as string, commit: /ends at `([0-9a-f]{7,40})`/.exec(paragraph)?.[1] });
  });
  return out;
}

/** The measures the release guard compares: `pair`'s names for the loads it runs. */
export const GUARDED = ["ingest", "conserver new vCons", "conserver later operation", "reads"] as const;
/** This tree may cost at most this many times the release's machine CPU per record. */
export const GUARD_LIMIT = 2;

/** The guard's finding on one measure. */
export interface GuardLine {
  name: string;
  ok: boolean;
  message: string;
}

/**
 * Compares `pair`'s rows: for each measure, this tree's machine CPU per record against the
 * release's. More than `limit` times the release's fails; so does a number missing or not
 * positive (a guard that cannot read a number must not pass quietly).
 */
export function guardVerdict(
  rows: readonly Row[],
  names: readonly string[] = GUARDED,
  limit = GUARD_LIMIT,
): { ok: boolean; lines: GuardLine[] } {
  const find = (name: string, who: string) =>
    rows.find(
      (r) =>
        r.scenario === "pair" &&
        r.metric.startsWith(`${name}: ${who}'s machine CPU per `) &&
        r.metric.endsWith("(median of the rounds)"),
    );
  const lines = names.map((name): GuardLine => {
    const mine = find(name, "this tree");
    const theirs = find(name, "other tree");
    const usable = (r: Row | undefined) =>
      r !== undefined && typeof r.value === "number" && Number.isFinite(r.value) && r.value > 0;
    if (!usable(mine) || !usable(theirs)) {
      const say = (r: Row | undefined) =>
        r === undefined ? "no row" : `${r.value}${r.note ? ` (${r.note})` : ""}`;
      return {
        name,
        ok: false,
        message: `${name}: machine CPU per record not measured (this tree: ${say(mine)}; release: ${say(theirs)})`,
      };
    }
    const [a, b] = [mine?.value as number, theirs?.value as number];
    const ratio = a / b;
    const unit = mine?.unit ?? "";
    const verdict = ratio > limit ? `more than ${limit} times the release's` : `within ${limit} times`;
    return {
      name,
      ok: ratio <= limit,
      message: `${name}: machine CPU per record ${a} ${unit} here, ${b} ${unit} in the release (${ratio.toFixed(2)}×, ${verdict})`,
    };
  });
  return { ok: lines.every((l) => l.ok), lines };
}
