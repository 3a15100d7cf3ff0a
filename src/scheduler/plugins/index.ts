// Every plugin by name: the one place that knows them all (policies/lists.ts names them). A plugin
// is a folder here with an index.ts exporting it; adding one means a folder and a line below.

import { admitUntilBlockedPlugin } from './admit-until-blocked/index.ts';
import { attainedServicePlugin } from './attained-service/index.ts';
import { backfillPlugin } from './backfill/index.ts';
import { cheapestFirstPlugin } from './cheapest-first/index.ts';
import { cooldownPlugin } from './cooldown/index.ts';
import { demoteConvergedPlugin } from './demote-converged/index.ts';
import { growBeforeAdmitPlugin } from './grow-before-admit/index.ts';
import { packNodesPlugin } from './pack-nodes/index.ts';
import { pruneNeedlessPreemptionPlugin } from './prune-needless-preemption/index.ts';
import { psNodesFirstPlugin } from './ps-nodes-first/index.ts';
import { qoeCapAtTargetPlugin } from './qoe-cap-at-target/index.ts';
import { qoeKeepTargetSizePlugin } from './qoe-keep-target-size/index.ts';
import { qoeTargetAsMinimumPlugin } from './qoe-target-as-minimum/index.ts';
import { qoeTargetsPlugin } from './qoe-targets/index.ts';
import { scalingKneePlugin } from './scaling-knee/index.ts';
import { suspendDemotedPlugin } from './suspend-demoted/index.ts';
import { usableNodesFirstPlugin } from './usable-nodes-first/index.ts';
import type { Plugin } from '../session/extension-points.ts';

const ALL: readonly Plugin[] = [
  admitUntilBlockedPlugin,
  attainedServicePlugin,
  backfillPlugin,
  cheapestFirstPlugin,
  cooldownPlugin,
  demoteConvergedPlugin,
  growBeforeAdmitPlugin,
  packNodesPlugin,
  pruneNeedlessPreemptionPlugin,
  psNodesFirstPlugin,
  qoeCapAtTargetPlugin,
  qoeKeepTargetSizePlugin,
  qoeTargetAsMinimumPlugin,
  qoeTargetsPlugin,
  scalingKneePlugin,
  suspendDemotedPlugin,
  usableNodesFirstPlugin,
];

export const PLUGINS: ReadonlyMap<string, Plugin> = new Map(ALL.map((p) => [p.name, p]));
