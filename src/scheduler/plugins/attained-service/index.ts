// The `attained-service` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';

export const attainedServicePlugin: Plugin = {
  name: 'attained-service',
  register(points) {
    points.ranking.byAttainedService = true;
  },
};
