// `relocateConverged` (SpeCon Algorithm 4, relocate.ts): when scale-in cannot admit the head, remote
// workers of Converged jobs ranked below it move onto their PS's nodes if the room they leave admits
// the head. Tried before suspension: it stops no job.

import type { CompiledJob } from '../job-model.ts';
import { relocateFor } from '../relocate.ts';
import { recordMove } from '../session/move.ts';
import type { PassSession } from '../session/session.ts';
import { relocationCandidates } from '../session/victims.ts';

/** Admits `head` by moving Converged jobs' workers (a `HeadFallback`); false if that is not enough. */
export function relocateConverged(session: PassSession, head: CompiledJob): boolean {
  const { state, now } = session;
  if (session.gate.blockOf(head) !== undefined) return false;
  const candidates = relocationCandidates(session, head);
  if (candidates.length === 0) return false;
  const res = relocateFor(state, head, candidates, now, session.cooldownMs);
  if (!res.ok) return false;
  for (const m of res.moves) recordMove(session, m.job, m.removed, m.to, head.key);
  session.admitPlaced(head, res.items, res.placement);
  return true;
}
