// The scheduler configuration a user reads, as Volcano's: each preemptive policy is the core pass
// (session/extension-points.ts: reclaim-quota → admit-heads → reclaim-for-growth → scale-out) plus
// an ordered list of plugins (../plugins/<name>/, each with a README), with their arguments. Plugins
// register in list order; actions a plugin adds run before or after the core action it names.
//
// `ours` is the list below with the configuration's `improvements` applied: a toggle that is off
// leaves its plugin out (ours.ts maps each toggle to its plugin). `tf-operator` is not a session
// pass (policies/tf-operator.ts), nor are the simulator's baselines (lab/simulator/policies/).
import type { PluginUse } from '../session/extension-points.ts';

export const POLICY_LISTS = {
  /** The paper's Algorithms 1–3: the core pass alone. */
  kod2: [],
  ours: [
    { name: 'ps-nodes-first' },
    { name: 'pack-nodes' },
    { name: 'cooldown' },
    { name: 'scaling-knee' },
    { name: 'prune-needless-preemption' },
    { name: 'usable-nodes-first' },
    { name: 'backfill' },
    { name: 'admit-until-blocked' },
    { name: 'cheapest-first' },
    { name: 'grow-before-admit' },
    { name: 'attained-service' },
    { name: 'suspend-demoted', args: { forBackfill: true } },
    { name: 'demote-converged' },
    { name: 'qoe-targets', args: { sizeFromCurve: true } },
    { name: 'qoe-keep-target-size' },
    { name: 'qoe-cap-at-target' },
    { name: 'qoe-target-as-minimum' },
  ],
} as const satisfies Readonly<Record<'kod2' | 'ours', readonly PluginUse[]>>;
