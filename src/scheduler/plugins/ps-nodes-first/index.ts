// The `ps-nodes-first` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const psNodesFirstPlugin: Plugin = {
  name: 'ps-nodes-first',
  register(points) {
    points.growth.psNodesFirst = true;
  },
};
