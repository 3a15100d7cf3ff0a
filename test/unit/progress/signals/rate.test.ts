// The step-rate estimator behind performance targets: a rate belongs to one worker count, skips the
// settling after a change, needs a minimum span, and survives re-reads and restarts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_CONFIG, foldSteps, measuredRate } from '../../../../src/progress/signals/rate.ts';
import type { ProgressSample } from '../../../../src/progress/signals/protocol.ts';

const sample = (step: number, seconds: number): ProgressSample => ({
  source: 'protocol',
  step,
  value: 1,
  name: 'loss',
  higherIsBetter: false,
  time: seconds * 1000,
});
/** Steps at `perSecond` every 10 s from `t0` to `t1` (seconds), starting at `step0`. */
const run = (perSecond: number, t0: number, t1: number, step0 = 0): ProgressSample[] =>
  Array.from({ length: Math.floor((t1 - t0) / 10) + 1 }, (_, i) => sample(step0 + perSecond * 10 * i, t0 + 10 * i));

describe('foldSteps / measuredRate', () => {
  it('measures the slope over the window, after the settling time', () => {
    const s = foldSteps(undefined, run(5, 0, 120), 2, 0);
    const r = measuredRate(s)!;
    expect(r.stepsPerSecond).toBeCloseTo(5);
    expect(r).toMatchObject({ workers: 2, step: 600, from: 20_000, to: 120_000 });
  });

  it('has no rate before the samples span the minimum', () => {
    expect(measuredRate(foldSteps(undefined, run(5, 0, 40), 2, 0))).toBeUndefined();
    expect(DEFAULT_RATE_CONFIG.minSpanMs).toBe(30_000);
  });

  it('starts over when the worker count changes, keeping the latest step', () => {
    const before = foldSteps(undefined, run(5, 0, 120), 2, 0);
    const after = foldSteps(before, run(10, 130, 150, 600), 4, 125_000);
    expect(measuredRate(after)).toBeUndefined();
    expect(after.step).toBe(800);
    const later = foldSteps(after, run(10, 160, 240, 900), 4, 240_000);
    expect(measuredRate(later)!.stepsPerSecond).toBeCloseTo(10);
    expect(measuredRate(later)!.workers).toBe(4);
  });

  it('ignores lines read twice, and starts a new series when the job restarts from an older step', () => {
    const s = foldSteps(undefined, run(5, 0, 120), 2, 0);
    expect(foldSteps(s, run(5, 0, 120), 2, 130_000)).toEqual(s);
    const restarted = foldSteps(s, run(5, 130, 140, 100), 2, 140_000);
    expect(restarted.step).toBe(150);
    expect(measuredRate(restarted)).toBeUndefined();
  });

  it('keeps only the window', () => {
    const s = foldSteps(undefined, run(5, 0, 3600), 2, 0);
    expect(s.points[0]!.time).toBeGreaterThanOrEqual(3600_000 - DEFAULT_RATE_CONFIG.windowMs - 10_000);
    expect(s.points.length).toBeLessThanOrEqual(64);
  });
});
