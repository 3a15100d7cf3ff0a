// Per-job protection of performance targets (DQoES Algorithm 1, lines 16–24: only jobs ahead of
// their target (G) give resources; a satisfied job (S) is left as it is). KOD2's scale-in knows
// nothing of targets, so without this a job that meets its target is shrunk below it to admit a job
// of its own class: counted per job, a target missed for a job that states none.
//
//   floor:     a running job with a reachable target keeps min(its workers, the workers its target
//              needs, qoe-size.ts) against a waiting job of its own class or lower that is not
//              starving; the workers above the floor may still go (an Ahead job's surplus).
// A higher class, and a starving job (its wait bound needs every same-class job down to its
// minimum, starvation.ts), are not held back: a target never outranks them.
//
// Not protected: suspension of demoted jobs (suspend.ts). Keeping a job with a reachable target (or
// only one with a deadline) running through it too made jobs without targets slower and met fewer
// targets on an overloaded cluster: blocked heads starve, and a starving head overrides every target
// (docs/results/log.md §1c′, "Rules tried and not kept").

import type { CompiledJob, RunningJob } from '../../model/job-model.ts';
import { workersForTarget } from '../../model/qoe-size.ts';

/** Whether `head` may take a targeted job's workers below what its target needs (higher class, or starving). */
function overridesTargets(victim: RunningJob, head: CompiledJob): boolean {
  return head.priority > victim.job.priority || head.starving;
}

/**
 * The fewest workers `victim` keeps when scaled in for `head` at `now`: what its target needs (at
 * most what it has); its minimum when it has no reachable target or `head` overrides targets.
 */
export function targetFloor(victim: RunningJob, head: CompiledJob, now: number): number {
  const wg = victim.job.workers;
  if (wg === undefined) return 0;
  if (victim.job.state.spec.qoe === undefined || overridesTargets(victim, head)) return wg.min;
  const need = workersForTarget(victim.job.state, now);
  return need === undefined ? wg.min : Math.min(victim.workers.length, Math.max(wg.min, need));
}
