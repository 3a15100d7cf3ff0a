// `ours`: `kod2` plus the improvements of scheduling.md §6 that `config.improvements` enables (all of
// them by default). Each toggle puts an action in the list or sets a named rule or option; each can
// be switched off alone, so the simulator can measure each one (docs/simulation-results.md). The
// README lists what each does.

import { admitHeads } from '../session/actions/admit-heads.ts';
import { growBeforeAdmit } from '../plugins/grow-before-admit/grow-before-admit.ts';
import { meetQoeTargets } from '../plugins/qoe-targets/meet-qoe-targets.ts';
import { reclaimForGrowth } from '../session/actions/reclaim-for-growth.ts';
import { reclaimQuota } from '../session/actions/reclaim-quota.ts';
import { scaleOutRunning } from '../session/actions/scale-out-running.ts';
import { shrinkAtTarget } from '../plugins/qoe-targets/shrink-at-target.ts';
import { suspendDemoted } from '../plugins/suspend-demoted/suspend-demoted.ts';
import type { ImprovementToggles } from '../config.ts';
import type { RunningJob } from '../model/job-model.ts';
import { shrinksAtTarget, throughputTargetCap } from '../plugins/qoe-targets/qoe-rebalance.ts';
import { runPass, type PassPolicy } from '../session/session.ts';
import { cheapestFirst, keepTargetSize, lowestRankFirst } from '../session/victims.ts';
import type { SchedulingPolicy } from './policy.ts';

/** The entries that are switched on. */
function on<T>(entries: readonly (T | false)[]): T[] {
  return entries.filter((e): e is T => e !== false);
}

/** `demoteConverged`: a job whose loss went NaN never grows. */
const diverged = (job: RunningJob): boolean => job.job.state.progress?.phase === 'Diverged';

export function oursPass(t: ImprovementToggles): PassPolicy {
  const qoe = t.qoeTargets;
  const suspend = t.demoteByAttainedService && t.suspendDemoted && suspendDemoted;
  return {
    ranking: {
      byAttainedService: t.demoteByAttainedService,
      byPhase: t.demoteConverged,
      targetMinimum: qoe && t.qoeTargetAsMinimum,
    },
    cooldown: t.cooldown,
    preemption: {
      order: t.preemptCheapestFirst ? cheapestFirst : lowestRankFirst,
      keeps: on([qoe && t.qoeKeepTargetSize && keepTargetSize]),
      usableNodesFirst: t.preemptOnUsableNodesFirst,
      pruneNeedless: t.pruneNeedlessPreemption,
      fallbacks: on([suspend]),
    },
    growth: {
      psNodesFirst: t.scaleOutPrefersPsNodes,
      packNodes: t.scaleOutPacksNodes,
      knee: t.scalingKnee,
      holds: on([qoe && shrinksAtTarget, t.demoteConverged && diverged]),
      ...(qoe && t.qoeCapAtTarget ? { capWhileWaiting: throughputTargetCap } : {}),
    },
    actions: on([
      qoe && shrinkAtTarget,
      reclaimQuota,
      t.growBeforeAdmit && growBeforeAdmit,
      admitHeads({
        untilBlocked: t.admitUntilBlocked,
        backfill: t.backfillWhenHeadBlocked,
        suspendForOne: t.suspendForBackfill && suspend ? suspend : undefined,
      }),
      qoe && meetQoeTargets({ sizeFromCurve: t.qoeSizeFromCurve }),
      reclaimForGrowth,
      scaleOutRunning,
    ]),
  };
}

export const oursPolicy: SchedulingPolicy = {
  name: 'ours',
  description:
    'KOD2 plus PS-affine packing scale-out, cool-down, scaling-knee stop, growth before admission and cheapest-first preemption by scaling curve, minimal preemption, backfill, multi-admission, attained-service and Converged demotion, suspension of demoted checkpointing jobs',
  schedule: (snapshot, config) => runPass(snapshot, config, oursPass(config.improvements)),
};
