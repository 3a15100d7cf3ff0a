// `consolidateSpreadJobs` (opt-in; consolidate.ts): last in the pass, with nobody left waiting who
// could use the room, running elastic jobs spread over more nodes than their worker count needs move
// their workers on the further nodes onto the nodes they already use, highest rank first; then the
// jobs still spread, together (crosswise remote workers swap). Nobody waiting: the room a move takes
// is then room no job asked for in this pass (a job that waits and does not fit now could still be
// helped or hindered by where the idle room sits; that trade is not made). Never onto nodes reserved
// for a starving job.

import { consolidateTogether, consolidationFor, isSpread, type Consolidation } from '../consolidate.ts';
import type { RunningJob } from '../job-model.ts';
import { byRankDescending } from '../queues.ts';
import { recordMove } from '../session/move.ts';
import type { Action, PassSession } from '../session/session.ts';

/** Plans a move already applied to the state. */
function record(session: PassSession, move: Consolidation): void {
  recordMove(session, move.job, move.removed, move.to, move.job.job.key);
}

export const consolidateSpread: Action = {
  name: 'consolidate-spread',
  run(session) {
    if (session.stillWaiting().length > 0) return;
    const { state, now, reserved } = session;
    const minHeldMs = session.config.scaleOutCooldownMs;
    const allowed = reserved === undefined ? undefined : (n: number) => reserved[n] !== 1;
    const blocked: RunningJob[] = [];
    for (const r of byRankDescending(session.model.running)) {
      if (!isSpread(state, r, now, minHeldMs)) continue;
      const move = consolidationFor(state, r, now, minHeldMs, allowed);
      if (move === undefined) {
        blocked.push(r);
        continue;
      }
      const vec = r.job.workers!.vec;
      for (let i = 0; i < move.removed.length; i++) {
        state.adjust(move.to[i]!, vec, -1);
        state.adjust(move.removed[i]!.node, vec, 1);
      }
      record(session, move);
    }
    if (blocked.length < 2) return;
    for (const move of consolidateTogether(state, blocked, allowed) ?? []) record(session, move);
  },
};
