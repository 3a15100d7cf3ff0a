// A job's own declared plan as a scheduling signal (`rankByDeclaredPlan`, scheduling.md §6 "A job's
// declared plan"). What a real operator sees: the share of its plan the job has done (`Epoch k/N`,
// the protocol's `epochs`/`totalSteps`, `spec.qoe.totalSteps`; JobProgress.planDone) and the
// worker-seconds it has held. Never the true remaining work: a plan is an upper bound (early stopping
// ends many jobs before it), so the estimate errs long.
import type { JobState } from './types.ts';

/** Below this share done the estimate is mostly noise (one epoch of a long plan); the job ranks as without one. */
export const MIN_PLAN_FRACTION = 0.05;

/**
 * Remaining service (worker-seconds) if the job keeps needing what it needed per unit of plan so far:
 * attained × (1 − f) / f. Undefined without a plan, before `MIN_PLAN_FRACTION`, or without service.
 */
export function declaredRemainingService(js: JobState): number | undefined {
  const f = js.progress?.planDone;
  const attained = js.attainedWorkerSeconds ?? 0;
  if (f === undefined || !(f >= MIN_PLAN_FRACTION) || !(attained > 0)) return undefined;
  return f >= 1 ? 0 : (attained * (1 - f)) / f;
}

export interface PlanRank {
  /** The attained-service band, replaced by the plan's: 0 when little remains, else 1. */
  readonly served: number;
  /** Orders the demoted band (less first; absent = unknown, after the known ones); −∞ for a starving job. */
  readonly remaining?: number;
}

/**
 * A job's band and SRSF-like key from its plan. A job with little left ranks in the first band as a
 * young job does, by weight: a key there would let it outrank the waiting jobs Algorithm 1's line 5
 * lets preempt. In the demoted band the key puts the least remaining first, the most remaining last
 * (first victim). A starving job keeps its band and ranks first in it (−∞), so the starvation bound
 * holds as without plans. With `promotesOnly` (`planPromotesOnly`) the plan only ever promotes: a job
 * with more left keeps its band and has no key, ranking as without a plan. With `promotedFirst`
 * (`planPromotedFirst`) a promoted job keeps its key: it ranks before the young jobs of the first band
 * (after the starving ones), least remaining first, so a young job's weight no longer takes its workers.
 * @param served the job's attained-service band; @param threshold `demoteAfterWorkerSeconds`
 */
export function planRank(
  js: JobState,
  served: number,
  starving: boolean,
  threshold: number,
  promotesOnly = false,
  promotedFirst = false,
): PlanRank {
  if (starving) return { served, remaining: Number.NEGATIVE_INFINITY };
  const remaining = declaredRemainingService(js);
  if (remaining === undefined) return { served };
  if (remaining <= threshold) return promotedFirst ? { served: 0, remaining } : { served: 0 };
  return promotesOnly ? { served } : { served: 1, remaining };
}

/** Within a band: jobs with a known remaining service first, less first; then the unknown ones (0: undecided). */
export function compareRemaining(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}
