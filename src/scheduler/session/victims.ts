// Preemption target selection, apart from issuing it (preempt.ts and the fallback actions issue):
// who may lose workers to a head, in which order, and which workers a victim keeps. Every candidate
// list starts from the running jobs lowest rank first (Alg. 2 line 3).
//
//   scale-in:   jobs ranked strictly below the head (so of its class or lower), of its own queue;
//               under quotas, first the borrowed workers of other queues it may reclaim; then the
//               policy's order (KOD2: by rank; plugins may register another, e.g. cheapest-first).
//   suspension: whole suspendable jobs more demoted than the head, ranked below it or reclaimable
//               (`suspendDemoted`).

import type { CompiledJob, RunningJob } from '../model/job-model.ts';
import { compareRank } from '../ranking/weight.ts';
import type { PassSession, VictimOrder } from './session.ts';

/** KOD2: lowest rank first, as given. */
export const lowestRankFirst: VictimOrder = (_state, ranked) => ranked;

/** Scale-in's victims for `head`, in the policy's order. */
export function scaleInVictims(session: PassSession, head: CompiledJob): readonly RunningJob[] {
  const { gate, state } = session;
  const ascending = session.runningAscending();
  // The jobs ranked strictly below the head are a prefix of the ascending list (ranks are a strict order).
  let below = 0;
  let above = ascending.length;
  while (below < above) {
    const mid = (below + above) >> 1;
    if (compareRank(ascending[mid]!.job, head) > 0) below = mid + 1;
    else above = mid;
  }
  const reclaimable = gate.reclaimTest(head);
  const ranked = gate.enabled
    ? [
        ...(reclaimable === undefined ? [] : ascending.filter(reclaimable)),
        ...ascending.slice(0, below).filter((r) => gate.sameLine(head, r)),
      ]
    : ascending.slice(0, below);
  return session.policy.preemption.order(state, ranked);
}

/** Whether `r` ranks below `head` within its class or lower and its queue: `head` may preempt it by rank. */
function preemptibleBy(session: PassSession, head: CompiledJob, r: RunningJob): boolean {
  return r.job.priority <= head.priority && compareRank(r.job, head) > 0 && session.gate.sameLine(head, r);
}

/** `suspendDemoted`'s candidates: suspendable jobs more demoted than `head` that it may preempt or reclaim, lowest rank first. */
export function suspensionCandidates(session: PassSession, head: CompiledJob): RunningJob[] {
  const reclaimable = session.gate.reclaimTest(head);
  return session
    .runningAscending()
    .filter(
      (r) =>
        r.job.state.spec.suspendable === true &&
        r.job.served > head.served &&
        (preemptibleBy(session, head, r) || reclaimable?.(r) === true),
    );
}

/** The policy's reasons a victim keeps a worker against `head`, as one test (undefined: none applies). */
export function keepsWorkerFor(session: PassSession, head: CompiledJob): ((victim: RunningJob, workers: number) => boolean) | undefined {
  const tests = session.policy.preemption.keeps.map((k) => k(session, head)).filter((t) => t !== undefined);
  if (tests.length <= 1) return tests[0];
  return (victim, workers) => tests.some((t) => t(victim, workers));
}
