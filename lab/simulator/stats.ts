// Plain statistics used by the figures: nearest-rank percentiles and time-weighted means of step
// functions.

export interface Distribution {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Nearest-rank percentile of ascending `sorted`: the smallest value with at least p% of the values at
 * or below it. Chosen over interpolation so every reported figure is a value that actually occurred.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of no values');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    mean: sorted.reduce((sum, v) => sum + v, 0) / sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

/**
 * Mean over [start, end] of a step function given as (t, value) samples sorted by t, each value
 * holding until the next sample's t (the last one until `end`); zero before the first sample.
 */
export function timeWeightedMean<T extends { readonly t: number }>(
  samples: readonly T[],
  start: number,
  end: number,
  value: (sample: T) => number,
): number {
  if (end <= start) return 0;
  let integral = 0;
  samples.forEach((sample, i) => {
    const from = Math.max(sample.t, start);
    const to = Math.min(samples[i + 1]?.t ?? end, end);
    if (to > from) integral += value(sample) * (to - from);
  });
  return integral / (end - start);
}
