// The paper's three queues, as orders over the pass model. The core keeps no state between passes,
// so the queues are views of the snapshot: WQ = `PassModel.waiting` (by rank, highest first), RQ =
// `PassModel.running`, FQ = jobs in phase `finished`. Moving a job WQ → RQ is an `Admission` in the
// plan; RQ → FQ is the controller's business (it applies the tf-operator success rules, §5.7).

import type { CompiledJob, RunningJob } from '../model/job-model.ts';
import { comparePriorityAndWeight, compareRank } from '../ranking/weight.ts';

/** Lowest rank first: Scale-In's victim order (Alg. 2 line 3). */
export function byRankAscending(running: readonly RunningJob[]): RunningJob[] {
  return [...running].sort((a, b) => compareRank(b.job, a.job));
}

/** Highest rank first: Scale-Out's order (Alg. 3 line 3). */
export function byRankDescending(running: readonly RunningJob[]): RunningJob[] {
  return [...running].sort((a, b) => compareRank(a.job, b.job));
}

/**
 * The highest-ranked running job of priority ≤ `priority`: what Algorithm 1 line 5 compares a
 * waiting job against. Running jobs of a higher class are left out because the waiting job could
 * never preempt them anyway; comparing against them would stop a job from ever preempting within
 * its own class while a more important class runs.
 */
export function runningMaxWithin(running: readonly RunningJob[], priority: number): RunningJob | undefined {
  let best: RunningJob | undefined;
  for (const r of running) {
    if (r.job.priority > priority) continue;
    if (best === undefined || compareRank(r.job, best.job) < 0) best = r;
  }
  return best;
}

/** Algorithm 1 line 5: "max ω over WQ ≥ max ω over RQ", with priority classes in front. */
export function outranksRunning(head: CompiledJob, runningMax: RunningJob | undefined): boolean {
  return runningMax === undefined || comparePriorityAndWeight(head, runningMax.job) <= 0;
}
