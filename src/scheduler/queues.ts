// The paper's three queues. The core keeps no state between passes, so the queues are views of the
// snapshot: WQ = waiting jobs (by rank, highest first), RQ = running jobs, FQ = finished jobs.
// Moving a job WQ → RQ is an `Admission` in the plan; RQ → FQ is the controller's business (it
// applies the tf-operator success rules, §5.7) and shows up as phase `finished` in the next snapshot.

import type { CompiledJob, PassModel, RunningJob } from './job-model.ts';
import type { ClusterSnapshot } from './types.ts';
import { comparePriorityAndWeight, compareRank } from './weight.ts';

export interface Queues {
  /** Waiting jobs, highest rank first (Algorithm 1 line 19's order). */
  readonly WQ: readonly CompiledJob[];
  readonly RQ: readonly RunningJob[];
  /** Keys of finished jobs, in key order. */
  readonly FQ: readonly string[];
}

export function queuesOf(model: PassModel, snapshot: ClusterSnapshot): Queues {
  const FQ = snapshot.jobs
    .filter((j) => j.phase === 'finished')
    .map((j) => j.spec.key)
    .sort();
  return { WQ: model.waiting, RQ: model.running, FQ };
}

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
