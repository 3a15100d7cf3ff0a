// What a training job would print as its evaluation metric, as a function of the work it has done:
// the simulator's progress model (issue: progress-aware scheduling). A job reports a point when its
// work crosses one (an evaluation at the end of an epoch); the scheduler sees only those reports,
// through the same phase machine as the operator (src/progress/signals/phase.ts), never the work.
//
// - Philly: the application's measured validation curve (traces/philly/apps/<app>/validation-<batch>.csv,
//   Pollux artifact), one point per epoch up to the job's maxEpochs, iterations and metric both
//   interpolated between the two nearest measured batch sizes exactly as the job's total work is
//   (step-time.ts). The metric's direction is the curve's own: lower is better when the last
//   epoch's value is below the first (deepspeech2's WER, yolov3's loss), higher otherwise.
// - kod2-paper (synthetic; the paper gives no curves): the demo emulator's accuracy curve
//   (`emulatedAccuracy`: fast early gains, then a plateau), evaluated at every tenth of the work.

import type { PhillyApp } from './philly/app.ts';
import { atEpoch } from './philly/step-time.ts';

export interface CurvePoint {
  /** Work done (in the job's work unit) when the evaluation is printed. */
  readonly work: number;
  readonly metric: number;
}

export interface ProgressCurve {
  readonly name: string;
  readonly higherIsBetter: boolean;
  /** By increasing work; the last point is at the job's total work. */
  readonly points: readonly CurvePoint[];
}

/** The emulated accuracy after `fraction` of a job's work: fast early gains, then a plateau. */
export function emulatedAccuracy(fraction: number): number {
  return 0.1 + 0.8 * (1 - Math.exp(-5 * Math.min(1, Math.max(0, fraction))));
}

/** Evaluations of the synthetic curve per job. */
const SYNTHETIC_EVALUATIONS = 10;

export function syntheticCurve(work: number): ProgressCurve {
  const points = Array.from({ length: SYNTHETIC_EVALUATIONS }, (_, i) => {
    const fraction = (i + 1) / SYNTHETIC_EVALUATIONS;
    return { work: work * fraction, metric: emulatedAccuracy(fraction) };
  });
  return { name: 'accuracy', higherIsBetter: true, points };
}

/** `work` is the job's total work: the curve's iterations are scaled to it (a rate jitter stretches work). */
export function phillyCurve(app: PhillyApp, globalBatch: number, maxEpochs: number, work: number): ProgressCurve {
  const iterations = Array.from({ length: maxEpochs }, (_, e) => atEpoch(app, globalBatch, e, 'iterationsAtEpoch'));
  const metrics = Array.from({ length: maxEpochs }, (_, e) => atEpoch(app, globalBatch, e, 'metricAtEpoch'));
  const total = iterations[maxEpochs - 1]!;
  const points = iterations.map((it, e) => ({ work: (it / total) * work, metric: metrics[e]! }));
  return { name: 'validation', higherIsBetter: metrics[maxEpochs - 1]! >= metrics[0]!, points };
}

/**
 * Index of the first point whose metric is within `tolerance` (relative) of the final one: the
 * job's time to accuracy is when its work crosses that point.
 */
export function accuracyPointIndex(curve: ProgressCurve, tolerance = 0.01): number {
  const final = curve.points.at(-1)?.metric;
  if (final === undefined) return -1;
  return curve.points.findIndex((p) => Math.abs(p.metric - final) <= tolerance * Math.abs(final));
}
