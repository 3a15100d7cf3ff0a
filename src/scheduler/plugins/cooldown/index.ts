// The `cooldown` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const cooldownPlugin: Plugin = {
  name: 'cooldown',
  register(points) {
    points.cooldown = true;
  },
};
