// Philly validation curves (test/fixtures/philly-validation, see its NOTICE.md) as progress samples.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ProgressSample } from '../../../../src/progress/signals/index.ts';

const DIR = path.resolve(import.meta.dirname, '../../../fixtures/philly-validation');

export interface CurvePoint {
  readonly progress: number;
  readonly iteration: number;
  readonly metric: number;
}

export function readCurve(file: string): CurvePoint[] {
  const [header, ...rows] = readFileSync(path.join(DIR, file), 'utf8').trim().split('\n');
  if (header !== 'progress,iteration,metric,grad_sqr,grad_var') throw new Error(`unexpected header in ${file}`);
  return rows.map((row) => {
    const [progress, iteration, metric] = row.split(',').map(Number) as [number, number, number];
    return { progress, iteration, metric };
  });
}

/** One sample per epoch, at step = the trace's progress (examples processed / batch), one epoch per minute. */
export function samples(curve: readonly CurvePoint[], higherIsBetter: boolean, noise: (i: number) => number = () => 0): ProgressSample[] {
  return curve.map((p, i) => ({
    source: 'protocol',
    step: Math.round(p.progress),
    epoch: i + 1,
    value: p.metric * (1 + noise(i)),
    name: 'metric',
    higherIsBetter,
    time: T0 + (i + 1) * 60_000,
  }));
}

export const T0 = Date.UTC(2026, 10, 24);
