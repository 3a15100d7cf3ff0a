// The `demote-converged` plugin: what it registers on the pass (README.md says what and why).
import type { Plugin } from '../../session/extension-points.ts';
import type { RunningJob } from '../../model/job-model.ts';

/** A job whose loss went NaN never grows. */
const diverged = (job: RunningJob): boolean => job.job.state.progress?.phase === 'Diverged';

export const demoteConvergedPlugin: Plugin = {
  name: 'demote-converged',
  register(points) {
    points.ranking.byPhase = true;
    points.growthHolds.push(diverged);
  },
};
