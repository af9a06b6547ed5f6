/** Small statistics for the benchmark: percentiles by the nearest-rank method, and rounding for the report. */

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an already sorted list; NaN when it is empty. */
function rank(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

export function percentile(values: ArrayLike<number>, fraction: number): number {
  return rank(Float64Array.from(values as ArrayLike<number>).sort(), fraction);
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count: sorted.length,
    p50: rank(sorted, 0.5),
    p99: rank(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    mean: sorted.length ? total / sorted.length : Number.NaN,
  };
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 0.5);
}

/** Rounds for the JSON file: enough digits to compare runs, not float noise. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function roundSummary(summary: Summary, digits = 2): Summary {
  return {
    count: summary.count,
    p50: round(summary.p50, digits),
    p99: round(summary.p99, digits),
    max: round(summary.max, digits),
    mean: round(summary.mean, digits),
  };
}

/** A small deterministic generator (mulberry32): every run makes the same text, varied enough that compression is not flattered. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
