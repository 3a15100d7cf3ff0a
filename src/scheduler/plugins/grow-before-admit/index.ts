// The `grow-before-admit` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { growBeforeAdmit } from './grow-before-admit.ts';

export const growBeforeAdmitPlugin: Plugin = {
  name: 'grow-before-admit',
  register(points) {
    points.addActionBefore('admit-heads', growBeforeAdmit);
  },
};
