// The `usable-nodes-first` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const usableNodesFirstPlugin: Plugin = {
  name: 'usable-nodes-first',
  register(points) {
    points.preemption.usableNodesFirst = true;
  },
};
