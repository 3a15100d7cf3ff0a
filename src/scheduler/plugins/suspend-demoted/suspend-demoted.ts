// `suspendDemoted` (suspend.ts): when scale-in cannot admit the head, whole demoted jobs ranked below
// it that declared themselves suspendable go back to the queue until it fits. Suspension frees
// nodes, not quota: a head over its queue's quota is not helped by it.

import type { CompiledJob } from '../../model/job-model.ts';
import type { PassSession } from '../../session/session.ts';
import { suspensionCandidates } from '../../session/victims.ts';
import { suspendFor } from '../../model/suspend.ts';

/** Admits `head` by suspending demoted jobs (a `HeadFallback`); false if that is not enough. */
export function suspendDemoted(session: PassSession, head: CompiledJob): boolean {
  if (session.gate.blockOf(head) !== undefined) return false;
  const candidates = suspensionCandidates(session, head);
  if (candidates.length === 0) return false;
  const res = suspendFor(session.state, head, candidates, session.now, session.config.scaleOutCooldownMs);
  if (!res.ok) return false;
  for (const victim of res.victims) {
    session.gate.release(victim);
    session.suspend(victim, head.key);
  }
  session.admitPlaced(head, res.items, res.placement);
  return true;
}
