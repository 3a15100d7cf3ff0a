// A throughput target as the job's minimum (DQoES's aim, §III: as many jobs as possible meet their
// targets). A job with a throughput target that runs below the workers its target needs misses it
// for as long as it runs so; admitted at its declared minimum it often does for its whole life
// (nothing is idle and nobody is ahead), and a demoted job resumed at its minimum is usually
// suspended again before it grows. So such a job's minimum, for one pass, is the size its target
// needs: it is admitted at that size or waits, is never scaled in below it, and a starving one gets
// exactly that much room (the wait bound of starvation.ts holds for any minimum that fits an empty
// cluster). What a user gets by setting `minReplicas` to that size, without knowing the size.
//
//   size:  workersForTarget (qoe-size.ts: declared curve, scaled by the measured rate once there
//          is one), for a throughput target only; none when unknown or unreachable.
// A waiting job whose raised minimum would not fit even the empty cluster keeps its declared one
// (`raisedMinimaThatNeverFit`, qoe-minimum-fit.ts): it could otherwise never be admitted.
// Deadlines are not raised: waiting spends a deadline's time, so such a job starts as soon as its
// declared minimum fits and grows (qoe-rebalance.ts).

import { workersForTarget } from './qoe-size.ts';
import type { JobState } from '../types.ts';

/** The minimum a throughput target asks for at `now`; undefined: the declared minimum stands. */
export function targetMinimum(job: JobState, now: number): number | undefined {
  if (job.spec.qoe?.stepsPerSecond === undefined) return undefined;
  return workersForTarget(job, now);
}
