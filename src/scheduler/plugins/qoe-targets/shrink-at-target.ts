// `qoeTargets`: jobs whose metric reached the target they set, and that asked to shrink then, go
// down to their minimum first: the room is there for this pass's admissions (qoe-rebalance.ts).

import { shrinkAtTargets } from './qoe-rebalance.ts';
import type { Action } from '../../session/session.ts';

export const shrinkAtTarget: Action = {
  name: 'shrink-at-target',
  run(session) {
    shrinkAtTargets(session.state, session.model.running, (job, removed) => {
      session.shrink(job, removed, job.job.key);
    });
  },
};
