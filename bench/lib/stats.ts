// Spread of repeated measurements: min / median / max and the coefficient of variation, which is
// what "how noisy is it" means in docs/benchmarks.md. Percentiles are the simulator's (nearest rank).

export { percentile } from '../../lab/simulator/stats.ts';

export interface Spread {
  readonly n: number;
  readonly min: number;
  readonly median: number;
  readonly max: number;
  readonly mean: number;
  /** Sample standard deviation / mean (0 for a single value). */
  readonly cv: number;
}

export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const mean = sorted.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? sorted.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  return { n, min: sorted[0]!, median, max: sorted[n - 1]!, mean, cv: mean === 0 ? 0 : Math.sqrt(variance) / Math.abs(mean) };
}

export function round(v: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function roundSpread(s: Spread | null, digits = 3): Spread | null {
  if (s === null) return null;
  return {
    n: s.n,
    min: round(s.min, digits),
    median: round(s.median, digits),
    max: round(s.max, digits),
    mean: round(s.mean, digits),
    cv: round(s.cv, 4),
  };
}
