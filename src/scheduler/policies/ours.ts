// `ours`: `kod2` plus the plugins of its list (lists.ts), each left out when the configuration's
// `improvements` switch it off, so the simulator can measure each one (docs/results/log.md §5).
// Each plugin's README says what it does and the figure that justified it.

import type { ImprovementToggles } from '../config.ts';
import { PLUGINS } from '../plugins/index.ts';
import { buildPass, type PluginArgs, type PluginUse } from '../session/extension-points.ts';
import { runPass, type PassPolicy } from '../session/session.ts';
import { POLICY_LISTS } from './lists.ts';
import type { SchedulingPolicy } from './policy.ts';

type OursPlugin = (typeof POLICY_LISTS.ours)[number]['name'];

/** Whether the toggles keep each plugin of `ours`' list (the QoE rules and suspension need their parent). */
const KEPT_BY: Record<OursPlugin, (t: ImprovementToggles) => boolean> = {
  'ps-nodes-first': (t) => t.scaleOutPrefersPsNodes,
  'pack-nodes': (t) => t.scaleOutPacksNodes,
  cooldown: (t) => t.cooldown,
  'scaling-knee': (t) => t.scalingKnee,
  'prune-needless-preemption': (t) => t.pruneNeedlessPreemption,
  'usable-nodes-first': (t) => t.preemptOnUsableNodesFirst,
  backfill: (t) => t.backfillWhenHeadBlocked,
  'admit-until-blocked': (t) => t.admitUntilBlocked,
  'cheapest-first': (t) => t.preemptCheapestFirst,
  'grow-before-admit': (t) => t.growBeforeAdmit,
  'attained-service': (t) => t.demoteByAttainedService,
  'suspend-demoted': (t) => t.demoteByAttainedService && t.suspendDemoted,
  'demote-converged': (t) => t.demoteConverged,
  'qoe-targets': (t) => t.qoeTargets,
  'qoe-keep-target-size': (t) => t.qoeTargets && t.qoeKeepTargetSize,
  'qoe-cap-at-target': (t) => t.qoeTargets && t.qoeCapAtTarget,
  'qoe-target-as-minimum': (t) => t.qoeTargets && t.qoeTargetAsMinimum,
};

/** The toggles that set a plugin's arguments. */
const ARGS_BY: Partial<Record<OursPlugin, (t: ImprovementToggles) => PluginArgs>> = {
  'suspend-demoted': (t) => ({ forBackfill: t.suspendForBackfill }),
  'qoe-targets': (t) => ({ sizeFromCurve: t.qoeSizeFromCurve }),
};

/** `ours`' list under these toggles. */
export function oursList(t: ImprovementToggles): PluginUse[] {
  return POLICY_LISTS.ours.filter((use) => KEPT_BY[use.name](t)).map((use) => ({ name: use.name, args: ARGS_BY[use.name]?.(t) ?? {} }));
}

export function oursPass(t: ImprovementToggles): PassPolicy {
  return buildPass(oursList(t), PLUGINS);
}

export const oursPolicy: SchedulingPolicy = {
  name: 'ours',
  description:
    'KOD2 plus PS-affine packing scale-out, cool-down, scaling-knee stop, growth before admission and cheapest-first preemption by scaling curve, minimal preemption, backfill, multi-admission, attained-service and Converged demotion, suspension of demoted checkpointing jobs',
  schedule: (snapshot, config) => runPass(snapshot, config, oursPass(config.improvements)),
};
