/** Latency summary of one run, in the samples' unit (milliseconds in this harness). */
export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Nearest-rank percentile of samples sorted ascending (p in 0..100); NaN when empty.
 * Nearest rank, not interpolation, so p99 is always a latency that was really observed.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const clamped = Math.min(100, Math.max(0, p));
  const rank = Math.ceil((clamped / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

/** Sorts a copy of the samples and summarises them (an exact HdrHistogram for small N). */
export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  return {
    count: n,
    mean: n ? sum / n : Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n ? (sorted[n - 1] as number) : Number.NaN,
  };
}

/** Events per second of `count` events in `ms` milliseconds (0 when no time passed). */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

/** value ÷ limit, or undefined when either is missing or the limit is not a positive number. */
export function ratio(
  value: number | null | undefined,
  limit: number | null | undefined,
): number | undefined {
  if (value === null || value === undefined || !Number.isFinite(value)) return undefined;
  if (limit === null || limit === undefined || !Number.isFinite(limit) || limit <= 0) return undefined;
  return value / limit;
}

/** Rounds for display: 3 significant digits below 100, whole numbers above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}

/** A distribution-free interval for the median of a few samples: two of them, and how sure. */
export interface MedianInterval {
  low: number;
  high: number;
  /** Probability that the interval holds the true median (the binomial order-statistic bound). */
  coverage: number;
}

/**
 * The shortest interval [x(k), x(n+1−k)] of the sorted samples that holds the population's
 * median with probability ≥ `level`, whatever the distribution: each sample falls below the
 * median with probability ½, so the interval misses it only when k or fewer fall on one side,
 * 2·P(Binomial(n, ½) ≤ k−1). With too few samples for `level` it is the widest, [min, max], and
 * `coverage` says what that gives (5 samples: 0.9375). Undefined without samples. `pair` uses it
 * to tell a change of a few per cent from a noisy machine's spread between rounds.
 */
export function medianInterval(samples: readonly number[], level = 0.95): MedianInterval | undefined {
  const n = samples.length;
  if (n === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  // tail[j] = P(B ≤ j) for B ~ Binomial(n, ½), summed from the binomial coefficients.
  const tail: number[] = [];
  let choose = 1;
  let sum = 0;
  for (let j = 0; j < n; j++) {
    sum += choose;
    tail.push(sum / 2 ** n);
    choose = (choose * (n - j)) / (j + 1);
  }
  const coverage = (k: number) => 1 - 2 * (tail[k - 1] as number);
  let k = 1;
  while (k + 1 <= Math.floor((n + 1) / 2) && coverage(k + 1) >= level) k++;
  return {
    low: sorted[k - 1] as number,
    high: sorted[n - k] as number,
    coverage: coverage(k),
  };
}
