// Queues (reclaim.ts): jobs of queues within their nominal quota grow into it, taking back the
// borrowed workers of other queues where theirs then fit, before anyone grows into idle room.
// Nothing happens without queues.

import { addWorkers, type RunningJob } from '../../model/job-model.ts';
import { reclaimForGrowth as growByReclaim } from '../../queues/reclaim.ts';
import { kneeLimit } from '../../model/scale-out.ts';
import { holdsSize, keptForStarving } from '../growth.ts';
import type { Action, PassSession } from '../session.ts';

/** How far a receiver may grow by reclaim: not at all if it holds its size, else up to its knee. */
function limitOf(session: PassSession): (r: RunningJob) => number {
  const stillWaiting = session.stillWaiting();
  const knee = session.kneeGain(stillWaiting.length > 0);
  const kept = keptForStarving(stillWaiting);
  return (r) => {
    const wg = r.job.workers!;
    if (holdsSize(session, r) || (session.policy.cooldown && r.scaledInThisPass)) return r.workers.length;
    if (kept?.(r) === true) return r.workers.length;
    return kneeLimit(wg.scalingCurve, wg.min, wg.max, knee);
  };
}

export const reclaimForGrowth: Action = {
  name: 'reclaim-for-growth',
  run(session) {
    const { gate, model, now, state } = session;
    if (!gate.enabled) return;
    growByReclaim(state, gate.ledger, gate.growthReceivers(model.running), model.running, limitOf(session), {
      reclaimed: (victim, removed, receiver) => {
        session.recordScaleIn(victim, removed, receiver.job.key, { reclaimedBy: receiver.job.state.spec.queue! });
      },
      grow: (receiver, nodes) => {
        session.grow(receiver, addWorkers(receiver, receiver.job.workers!.type, nodes, now));
      },
    });
  },
};
