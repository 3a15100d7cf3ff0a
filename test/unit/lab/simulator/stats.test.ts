import { describe, expect, it } from 'vitest';
import { distribution, percentile, timeWeightedMean } from '../../../../lab/simulator/stats.ts';

describe('percentiles (nearest rank)', () => {
  it('picks the smallest value with at least p% at or below it', () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1); // 1..20
    expect(percentile(values, 50)).toBe(10);
    expect(percentile(values, 95)).toBe(19);
    expect(percentile(values, 99)).toBe(20);
    expect(percentile(values, 100)).toBe(20);
    expect(percentile([7], 1)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
  });

  it('summarises unsorted values', () => {
    expect(distribution([30, 10, 20, 40])).toEqual({ count: 4, mean: 25, p50: 20, p95: 40, p99: 40, max: 40 });
    expect(distribution([])).toBeNull();
  });
});

describe('time-weighted mean', () => {
  const samples = [
    { t: 0, v: 1 },
    { t: 10, v: 3 },
    { t: 40, v: 0 },
  ];

  it('weights each value by how long it held', () => {
    // 1 for 10 s, 3 for 30 s, 0 for 60 s over [0, 100]: (10 + 90) / 100.
    expect(timeWeightedMean(samples, 0, 100, (s) => s.v)).toBeCloseTo(1, 12);
  });

  it('clips to the window and counts nothing before the first sample', () => {
    // [5, 20]: 1 for 5 s, 3 for 10 s → 35 / 15.
    expect(timeWeightedMean(samples, 5, 20, (s) => s.v)).toBeCloseTo(35 / 15, 12);
    // [-10, 10]: 0 for 10 s (no sample yet), 1 for 10 s → 0.5.
    expect(timeWeightedMean(samples, -10, 10, (s) => s.v)).toBeCloseTo(0.5, 12);
    expect(timeWeightedMean(samples, 5, 5, (s) => s.v)).toBe(0);
  });
});
