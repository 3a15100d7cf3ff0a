// Algorithm 1 lines 31–36: Scale-Out (Alg. 3) of the running jobs, highest rank first, into the idle
// room the admissions left. The knee (and a target's cap) applies only while someone waits who
// could use the room: with nobody left waiting, an extra worker still pays a little and costs
// nothing. Reserved nodes stay empty, and no job a starving one outranks grows (growth.ts).

import { growRunning, keptForStarving } from '../growth.ts';
import type { Action } from '../session.ts';

export const scaleOutRunning: Action = {
  name: 'scale-out',
  run(session) {
    const stillWaiting = session.stillWaiting();
    const kept = keptForStarving(stillWaiting);
    growRunning(session, {
      knee: stillWaiting.length > 0,
      skipJobsScaledInThisPass: session.policy.cooldown,
      reserved: session.reserved,
      ...(kept === undefined ? {} : { limitFor: (job, limit) => (kept(job) ? job.workers.length : limit) }),
    });
  },
};
