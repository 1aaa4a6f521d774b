/**
 * Small, dependency-free statistics for the benchmarks. Percentiles use the nearest-rank method on
 * the sorted samples: p99 of 200 samples is the 198th smallest, a value that was really observed.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0-100, got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  return {
    n,
    min: n ? Math.min(...samples) : Number.NaN,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    max: n ? Math.max(...samples) : Number.NaN,
    mean: n ? samples.reduce((s, v) => s + v, 0) / n : Number.NaN,
  };
}

/** The most frequent value (the smallest one on a tie): "what one call usually costs". */
export function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = Number.NaN;
  let bestCount = 0;
  for (const [v, c] of [...counts].sort((a, b) => a[0] - b[0])) {
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

/** Rounds for display and for results.json, keeping small numbers readable. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
