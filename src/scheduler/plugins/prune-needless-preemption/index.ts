// The `prune-needless-preemption` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const pruneNeedlessPreemptionPlugin: Plugin = {
  name: 'prune-needless-preemption',
  register(points) {
    points.preemption.pruneNeedless = true;
  },
};
