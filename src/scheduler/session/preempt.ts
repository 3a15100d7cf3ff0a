// Scale-In for a head (Alg. 2), issuing what victims.ts selects: the removals that admit the head's
// minimum configuration, or else the policy's fallbacks (suspension), or else the
// head's outcome says why it waits.

import type { CompiledJob } from '../model/job-model.ts';
import type { PlacementFailure } from '../model/placement.ts';
import { queueKey } from '../queues/queue-gate.ts';
import { scaleInFor } from '../model/scale-in.ts';
import type { PassSession } from './session.ts';
import { keepsWorkerFor, scaleInVictims } from './victims.ts';

/**
 * Admits `head` by preemption; false if it cannot. `failure`: why its minimum does not fit now
 * (undefined: it fits, but `overQuota` says its queue's quota does not take it: the removals must
 * free quota).
 */
export function admitByPreemption(
  session: PassSession,
  head: CompiledJob,
  failure: PlacementFailure | undefined,
  overQuota: string | undefined,
): boolean {
  const { gate, state, policy } = session;
  const keepsWorker = keepsWorkerFor(session, head);
  const res = scaleInFor(state, head, scaleInVictims(session, head), session.now, {
    quota: gate.quotaTrial(head),
    cooldownMs: session.cooldownMs,
    usableNodesFirst: policy.preemption.usableNodesFirst,
    pruneNeedless: policy.preemption.pruneNeedless,
    ...(keepsWorker === undefined ? {} : { keepsWorker }),
  });
  if (!res.ok) {
    if (policy.preemption.fallbacks.some((fallback) => fallback(session, head))) return true;
    session.outcomes.set(
      head.key,
      overQuota !== undefined
        ? { kind: 'quota', why: `${overQuota}; scaling in lower-ranked jobs of its queue would not free enough` }
        : { kind: 'head-blocked', failure: failure!, scaleIn: res.stats },
    );
    return false;
  }
  for (const { victim, workers } of res.removals) {
    // A worker of another queue is borrowed quota taken back, not a preemption by rank.
    const reclaimedBy = queueKey(victim.job) === queueKey(head) ? undefined : head.state.spec.queue;
    session.shrink(victim, workers, head.key, reclaimedBy === undefined ? {} : { reclaimedBy });
  }
  session.admitPlaced(head, res.items, res.placement);
  return true;
}
