// `qoeTargets` (DQoES, qoe-rebalance.ts): after admissions and before plain scale-out, running jobs
// behind their performance target grow, from idle capacity first, then one-for-one from jobs ahead
// of theirs (same class or lower). Not a job a starving one outranks: its room is kept.

import { rebalanceForTargets } from './qoe-rebalance.ts';
import { keptForStarving } from '../../session/growth.ts';
import type { Action } from '../../session/session.ts';

export interface MeetQoeTargetsOptions {
  /** `qoeSizeFromCurve`: a Behind job's need from its declared curve, not capped at the knee. */
  readonly sizeFromCurve: boolean;
}

export function meetQoeTargets(opts: MeetQoeTargetsOptions): Action {
  return {
    name: 'meet-qoe-targets',
    options: opts,
    run(session) {
      const { gate, policy, reserved } = session;
      const stillWaiting = session.stillWaiting();
      const kept = keptForStarving(stillWaiting);
      rebalanceForTargets(
        session.state,
        session.model.running,
        {
          now: session.now,
          cooldownMs: session.cooldownMs,
          scaleOut: {
            psNodesFirst: policy.growth.psNodesFirst,
            packNodes: policy.growth.packNodes,
            skipJobsScaledInThisPass: policy.cooldown,
            ...(reserved === undefined ? {} : { reserved }),
          },
          mayGrow: (r) => kept === undefined || !kept(r),
          quota: gate.enabled ? { limitFor: (r, limit) => gate.growthLimit(r, limit), mayDonate: (d, r) => gate.mayMove(d, r) } : undefined,
          kneeMinMarginalGain: session.kneeGain(stillWaiting.length > 0),
          sizeFromCurve: opts.sizeFromCurve,
        },
        {
          grow: (job, added) => {
            session.grow(job, added);
          },
          donate: (donor, removed, receiver) => {
            session.shrink(donor, removed, receiver.job.key, { toMeetTarget: true });
          },
        },
      );
    },
  };
}
