// The evaluation function E(t) of a job, as FlowCon's growth efficiency needs it: the values of the
// job's tracked metric (or loss) with the time each was measured, one series per metric name. Which
// values a training style gives is in docs/progress-protocol.md ("Evaluation series per style").
// Pure: the reader folds each chunk's samples in; the series holds only the last points.

import type { ProgressSample, SampleSource } from './protocol.ts';

/** One value of E(t). */
export interface EvaluationValue {
  /** When it was measured: the line's own time, else its log timestamp, else when it was read (ms). */
  readonly time: number;
  readonly value: number;
  readonly step?: number;
}

export interface EvaluationSeries {
  readonly name: string;
  readonly higherIsBetter: boolean;
  /** The format the values came from (protocol, keras, estimator, log). */
  readonly source: SampleSource;
  /** Oldest first; at most MAX_EVALUATION_POINTS. */
  readonly points: readonly EvaluationValue[];
}

/** Enough to look back over FlowCon's longest interval at one value per round. */
export const MAX_EVALUATION_POINTS = 32;

/**
 * The series after `samples` (in log order). A sample of another metric name starts a new series: an
 * Estimator's training-loss lines give way to its evaluation accuracy once it evaluates, and a growth
 * measured across two metrics would mean nothing.
 */
export function foldEvaluationSeries(
  prev: EvaluationSeries | undefined,
  samples: readonly ProgressSample[],
  readAt: number,
): EvaluationSeries | undefined {
  let series = prev;
  for (const s of samples) {
    const point: EvaluationValue = { time: s.time ?? readAt, value: s.value, ...(s.step !== undefined ? { step: s.step } : {}) };
    if (series === undefined || series.name !== s.name || series.higherIsBetter !== s.higherIsBetter) {
      series = { name: s.name, higherIsBetter: s.higherIsBetter, source: s.source, points: [point] };
      continue;
    }
    const last = series.points[series.points.length - 1];
    // Time never runs back; the same step and value again (a line read twice) is one point.
    if (
      last !== undefined &&
      (point.time < last.time || (point.step !== undefined && point.step === last.step && point.value === last.value))
    )
      continue;
    series = { ...series, points: [...series.points, point].slice(-MAX_EVALUATION_POINTS) };
  }
  return series;
}

/** The newest value, or undefined without one. */
export function latestEvaluation(series: EvaluationSeries | undefined): EvaluationValue | undefined {
  return series?.points[series.points.length - 1];
}
