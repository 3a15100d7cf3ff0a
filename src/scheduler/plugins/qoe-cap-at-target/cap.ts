// The growth cap of `qoe-cap-at-target`: the size a throughput target needs (model/qoe-size.ts).
import type { RunningJob } from '../../model/job-model.ts';
import { workersForTarget } from '../../model/qoe-size.ts';

/**
 * `qoeCapAtTarget`: the most workers plain scale-out may give `job` (at most `limit`) while others
 * wait: a job with a throughput target stops at the size that meets it (never below what it has);
 * without one, or when nothing says what meets it, `limit`.
 */
export function throughputTargetCap(job: RunningJob, limit: number, now: number): number {
  if (job.job.state.spec.qoe?.stepsPerSecond === undefined) return limit;
  const size = workersForTarget(job.job.state, now);
  return size === undefined ? limit : Math.min(limit, Math.max(job.workers.length, size));
}
