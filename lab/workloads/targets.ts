// Performance targets for a scenario's jobs (DQoES): a seeded share of the jobs states either a
// throughput target (a fraction of what the job runs alone at its maximum workers) or a deadline
// (a multiple of its ideal runtime after submission), as users who know their job roughly would.
// The target is the user's statement; no policy reads how it was derived.

import type { QoeTarget } from '../../src/scheduler/types.ts';
import { fewestNodesRate, idealRuntimeSeconds } from './ideal.ts';
import type { ClusterShape, WorkloadJob } from './model.ts';
import { seededRandom } from './random.ts';
import type { ScenarioDefinition } from './scenario-schema.ts';

export type TargetsDefinition = NonNullable<ScenarioDefinition['targets']>;

/** Offsets the seed so that picking targets never shifts the draws of the jobs themselves. */
const TARGET_SEED_SALT = 0x51_0e;

const within = (random: () => number, [lo, hi]: readonly [number, number]): number => lo + (hi - lo) * random();

export function assignTargets(
  jobs: readonly WorkloadJob[],
  def: TargetsDefinition,
  cluster: ClusterShape,
  startupSeconds: number,
  seed: number,
): WorkloadJob[] {
  const random = seededRandom(seed ^ TARGET_SEED_SALT);
  return jobs.map((job) => {
    // Three draws per job whatever is picked, so one job's choice never shifts the next one's.
    const [pick, kindDraw, factorDraw] = [random(), random(), random()];
    if (pick >= def.fraction) return job;
    const kind = def.kind === 'mixed' ? (kindDraw < 0.5 ? 'throughput' : 'deadline') : def.kind;
    const common = { tolerance: def.tolerance, adjustStep: def.adjustStep };
    let qoe: QoeTarget;
    if (kind === 'throughput') {
      const factor = within(() => factorDraw, def.throughputFactor);
      qoe = { ...common, stepsPerSecond: factor * fewestNodesRate(job, job.workers.max, cluster) };
    } else {
      const factor = within(() => factorDraw, def.deadlineFactor);
      const at = (job.submitSeconds + factor * idealRuntimeSeconds(job, cluster, startupSeconds)) * 1000;
      qoe = { ...common, deadline: { at, totalSteps: job.work } };
    }
    return { ...job, qoe };
  });
}
