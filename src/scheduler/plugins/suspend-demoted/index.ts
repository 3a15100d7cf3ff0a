// The `suspend-demoted` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { suspendDemoted } from './suspend-demoted.ts';

export const suspendDemotedPlugin: Plugin = {
  name: 'suspend-demoted',
  register(points, args) {
    points.headFallbacks.push(suspendDemoted);
    if (args.forBackfill === true) points.admission.suspendForOne = suspendDemoted;
  },
};
