/**
 * How far a record's declared time may lie from the time the service accepted it before the
 * console flags it: one day either way. A link declares when the operation happened and posts
 * it within seconds to hours (a queue drained after an outage, a batch run overnight); past a
 * day, a declared time is more likely wrong, back-dated or post-dated than late, and an auditor
 * should look at it.
 */
export const DECLARED_GAP_LIMIT_MS = 24 * 60 * 60 * 1000;

export interface DeclaredGap {
  /** Accepted minus declared, in milliseconds (positive: declared before it was accepted). */
  ms: number;
  /** Past DECLARED_GAP_LIMIT_MS either way. */
  flagged: boolean;
  /** The gap in words, e.g. "declared 3 days before it was accepted". */
  words: string;
}

function span(ms: number): string {
  const abs = Math.abs(ms);
  const units: Array<[number, string]> = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1000, "second"],
  ];
  for (const [size, name] of units)
    if (abs >= size) {
      const n = Math.floor(abs / size);
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  return "less than a second";
}

/** The gap between a declared and an accepted time (RFC 3339), or undefined when either is missing or unreadable. */
export function declaredGap(declared: string, accepted: string): DeclaredGap | undefined {
  const d = Date.parse(declared);
  const a = Date.parse(accepted);
  if (!declared || !accepted || Number.isNaN(d) || Number.isNaN(a)) return undefined;
  const ms = a - d;
  return {
    ms,
    flagged: Math.abs(ms) > DECLARED_GAP_LIMIT_MS,
    words:
      ms >= 0 ? `declared ${span(ms)} before it was accepted` : `declared ${span(ms)} after it was accepted`,
  };
}
