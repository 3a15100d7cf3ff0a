// Queues (reclaim.ts, Kueue's reclaim within a cohort): the first waiting job of each queue whose
// minimum fits its nominal quota, but not what its cohort still lends, takes the quota back from the
// queues that borrow it and is tried at once, lowest queue share first. If it still cannot be
// placed, the quota stays held for it for the rest of the pass, so no borrower grows back into it.
// Nothing happens without queues.

import type { CompiledJob } from '../../model/job-model.ts';
import { reclaimQuota as takeQuotaBack } from '../../queues/reclaim.ts';
import { admitByPreemption } from '../preempt.ts';
import type { Action, PassSession } from '../session.ts';

/** The first waiting job of each queue that could be admitted at all. */
function firstOfEachQueue(session: PassSession): Map<string, CompiledJob> {
  const firstOf = new Map<string, CompiledJob>();
  for (const job of session.waitingOrder) {
    const q = job.state.spec.queue;
    if (q === undefined || firstOf.has(q) || job.state.spec.inadmissible !== undefined || session.neverFits(job) !== undefined) continue;
    firstOf.set(q, job);
  }
  return firstOf;
}

function reclaimFor(session: PassSession, q: string, head: CompiledJob): void {
  const { gate, state, model } = session;
  if (!gate.ledger.has(q) || gate.blockOf(head) === undefined || !gate.withinNominal(head)) return;
  const taken = takeQuotaBack(state, gate.ledger, q, head, head.minRequests, model.running);
  if (taken === undefined) return;
  for (const { victim, workers } of taken.removals) session.recordScaleIn(victim, workers, head.key, { reclaimedBy: q });
  for (const victim of taken.suspended) session.suspend(victim, head.key);
  const failure = session.admitDirect(head);
  if (failure === undefined || admitByPreemption(session, head, failure, undefined)) return;
  gate.charge(head, head.minRequests, 1);
}

export const reclaimQuota: Action = {
  name: 'reclaim-quota',
  run(session) {
    const { gate } = session;
    if (!gate.enabled) return;
    const firstOf = firstOfEachQueue(session);
    const byShare = [...firstOf.keys()].sort((a, b) => gate.ledger.share(a) - gate.ledger.share(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const q of byShare) reclaimFor(session, q, firstOf.get(q)!);
  },
};
