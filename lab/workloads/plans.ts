// What each simulated job declares about its own length (its plan: Keras's `Epoch k/N`, the
// protocol's `epochs`/`totalSteps`), scheduling.md §6 "A job's declared plan". Three models:
//   none:      no job declares anything (the operator sees no plan);
//   perfect:   every job declares exactly its true work;
//   realistic: a share declares nothing (custom loops and Estimator jobs that print no plan,
//              `verbose=0`), and a share of the declaring jobs stops early (EarlyStopping), at a
//              uniform point of its plan: the plan is then its work ÷ that point, an upper bound.
// The shares are the model's assumptions (docs/results/log.md §1e says why these), drawn with
// the run's seed; no policy reads how a plan was derived, and oracles read the true work as before.

import type { WorkloadJob } from './model.ts';
import { seededRandom } from './random.ts';
import type { ScenarioDefinition } from './scenario-schema.ts';

export type PlansDefinition = NonNullable<ScenarioDefinition['declaredPlans']>;

/** Offsets the seed so that drawing plans never shifts the draws of the jobs or of their targets. */
const PLAN_SEED_SALT = 0x91_a7;

export function assignPlans(jobs: readonly WorkloadJob[], def: PlansDefinition, seed: number): WorkloadJob[] {
  if (def.model === 'none') return [...jobs];
  if (def.model === 'perfect') return jobs.map((job) => ({ ...job, plannedWork: job.work }));
  const random = seededRandom(seed ^ PLAN_SEED_SALT);
  return jobs.map((job) => {
    // Three draws per job whatever is picked, so one job's choice never shifts the next one's.
    const [declares, stops, at] = [random(), random(), random()];
    if (declares < def.undeclared) return job;
    if (stops >= def.earlyStop) return { ...job, plannedWork: job.work };
    const [lo, hi] = def.stopAt;
    return { ...job, plannedWork: job.work / (lo + (hi - lo) * at) };
  });
}
