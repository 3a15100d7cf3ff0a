// The `qoe-targets` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { meetQoeTargets } from './meet-qoe-targets.ts';
import { shrinksAtTarget } from './qoe-rebalance.ts';
import { shrinkAtTarget } from './shrink-at-target.ts';

export const qoeTargetsPlugin: Plugin = {
  name: 'qoe-targets',
  register(points, args) {
    points.addActionBefore('reclaim-quota', shrinkAtTarget);
    points.addActionAfter('admit-heads', meetQoeTargets({ sizeFromCurve: args.sizeFromCurve === true }));
    points.growthHolds.push(shrinksAtTarget);
  },
};
