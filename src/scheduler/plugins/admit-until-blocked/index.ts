// The `admit-until-blocked` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const admitUntilBlockedPlugin: Plugin = {
  name: 'admit-until-blocked',
  register(points) {
    points.admission.untilBlocked = true;
  },
};
