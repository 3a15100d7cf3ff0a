// The `cheapest-first` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import { cheapestFirst } from './cheapest-first.ts';

export const cheapestFirstPlugin: Plugin = {
  name: 'cheapest-first',
  register(points) {
    points.victimOrder = cheapestFirst;
  },
};
