// The `qoe-cap-at-target` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { throughputTargetCap } from './cap.ts';

export const qoeCapAtTargetPlugin: Plugin = {
  name: 'qoe-cap-at-target',
  register(points) {
    points.growthCap = throughputTargetCap;
  },
};
