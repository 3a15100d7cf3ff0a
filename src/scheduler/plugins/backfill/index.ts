// The `backfill` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const backfillPlugin: Plugin = {
  name: 'backfill',
  register(points) {
    points.admission.backfill = true;
  },
};
