// The `scaling-knee` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const scalingKneePlugin: Plugin = {
  name: 'scaling-knee',
  register(points) {
    points.growth.knee = true;
  },
};
