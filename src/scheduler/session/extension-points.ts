// The named extension points of a pass, in the manner of Volcano's session: plugins (../plugins/)
// register rules into them, and `buildPass` turns a policy's ordered list of plugins into the
// `PassPolicy` the session runs. With no plugin the pass is KOD2's: its four core actions, victims
// lowest rank first, no keep rule, fallback, hold or cap.
// Vertical rules (in-place CPU limits) are not pass points: they keep state across rounds and run
// on their own interval in the operator's vertical stage (../vertical/).
//
//   ranking          demotion bands of the rank key (job order) and refinements of the model
//   cooldown         hysteresis of scale-in and regrowth
//   victimOrder      the order scale-in visits its candidates in (one; the last registration wins)
//   keeps            why a victim keeps a worker (any one suffices)
//   preemption       options of scale-in (usable nodes first, prune needless removals)
//   headFallbacks    other ways to admit a head when scale-in cannot
//   admission        options of admit-heads (until blocked, backfill, one suspension for backfill)
//   growth           options of scale-out; holds (jobs kept at their size); cap while jobs wait
//   actions          steps added before or after a core action

import { admitHeads, type AdmitHeadsOptions } from './actions/admit-heads.ts';
import { reclaimForGrowth } from './actions/reclaim-for-growth.ts';
import { reclaimQuota } from './actions/reclaim-quota.ts';
import { scaleOutRunning } from './actions/scale-out-running.ts';
import type { RunningJob } from '../model/job-model.ts';
import type { Action, GrowthRules, HeadFallback, KeepRule, PassPolicy, RankingRefinement, VictimOrder } from './session.ts';
import { lowestRankFirst } from './victims.ts';

/** A plugin's arguments, as the policy list gives them. */
export type PluginArgs = Readonly<Record<string, boolean | number | string>>;

/** One rule of a policy: its name (its folder under plugins/) and what it registers. */
export interface Plugin {
  readonly name: string;
  register(points: ExtensionPoints, args: PluginArgs): void;
}

/** One entry of a policy's list: a plugin by name, with its arguments. */
export interface PluginUse {
  readonly name: string;
  readonly args?: PluginArgs;
}

/** The core actions (KOD2's Algorithm 1 with the queues' reclaim), the anchors plugin actions are placed by. */
export const CORE_ACTIONS = ['reclaim-quota', 'admit-heads', 'reclaim-for-growth', 'scale-out'] as const;
export type CoreActionName = (typeof CORE_ACTIONS)[number];

export class ExtensionPoints {
  readonly ranking = { byAttainedService: false, byPhase: false, targetMinimum: false };
  readonly refineRanking: RankingRefinement[] = [];
  cooldown = false;
  victimOrder: VictimOrder = lowestRankFirst;
  readonly keeps: KeepRule[] = [];
  readonly preemption = { usableNodesFirst: false, pruneNeedless: false };
  readonly headFallbacks: HeadFallback[] = [];
  readonly admission: { untilBlocked: boolean; backfill: boolean; suspendForOne?: HeadFallback } = { untilBlocked: false, backfill: false };
  readonly growth = { psNodesFirst: false, packNodes: false, knee: false };
  readonly growthHolds: ((job: RunningJob) => boolean)[] = [];
  growthCap: GrowthRules['capWhileWaiting'];
  readonly #before = new Map<CoreActionName, Action[]>();
  readonly #after = new Map<CoreActionName, Action[]>();

  /** Runs `action` just before the core action `anchor` (after what earlier plugins put there). */
  addActionBefore(anchor: CoreActionName, action: Action): void {
    this.#before.set(anchor, [...(this.#before.get(anchor) ?? []), action]);
  }

  /** Runs `action` after the core action `anchor` and what earlier plugins put after it. */
  addActionAfter(anchor: CoreActionName, action: Action): void {
    this.#after.set(anchor, [...(this.#after.get(anchor) ?? []), action]);
  }

  /** The pass these registrations make. */
  build(): PassPolicy {
    const admission: AdmitHeadsOptions = {
      untilBlocked: this.admission.untilBlocked,
      backfill: this.admission.backfill,
      ...(this.admission.suspendForOne === undefined ? {} : { suspendForOne: this.admission.suspendForOne }),
    };
    const core: Record<CoreActionName, Action> = {
      'reclaim-quota': reclaimQuota,
      'admit-heads': admitHeads(admission),
      'reclaim-for-growth': reclaimForGrowth,
      'scale-out': scaleOutRunning,
    };
    return {
      ranking: { ...this.ranking },
      refineRanking: [...this.refineRanking],
      cooldown: this.cooldown,
      preemption: { order: this.victimOrder, keeps: [...this.keeps], ...this.preemption, fallbacks: [...this.headFallbacks] },
      growth: {
        ...this.growth,
        holds: [...this.growthHolds],
        ...(this.growthCap === undefined ? {} : { capWhileWaiting: this.growthCap }),
      },
      actions: CORE_ACTIONS.flatMap((name) => [...(this.#before.get(name) ?? []), core[name], ...(this.#after.get(name) ?? [])]),
    };
  }
}

/** The pass of a policy's list: each plugin registers in list order. An unknown name is an error. */
export function buildPass(list: readonly PluginUse[], plugins: ReadonlyMap<string, Plugin>): PassPolicy {
  const points = new ExtensionPoints();
  for (const use of list) {
    const plugin = plugins.get(use.name);
    if (plugin === undefined) throw new Error(`unknown scheduler plugin "${use.name}"; known: ${[...plugins.keys()].join(', ')}`);
    plugin.register(points, use.args ?? {});
  }
  return points.build();
}
