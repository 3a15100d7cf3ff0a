// The `pack-nodes` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const packNodesPlugin: Plugin = {
  name: 'pack-nodes',
  register(points) {
    points.growth.packNodes = true;
  },
};
