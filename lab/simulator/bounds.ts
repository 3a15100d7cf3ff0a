// Lower bounds (docs/simulation-results.md §1): no policy can beat them, so every figure is also reported as a
// ratio to them.
import type { ClusterShape, WorkloadJob } from '../workloads/model.ts';
import { clusterCapacity } from '../workloads/model.ts';
import { idealRuntimeSeconds, minimumResourceSeconds } from '../workloads/ideal.ts';

export interface LowerBounds {
  /** Ideal JCT by job name: maximum workers on the fewest nodes, no queueing. */
  readonly idealJct: Readonly<Record<string, number>>;
  readonly meanIdealJct: number;
  /** Latest arrival + ideal runtime over all jobs (the last arrival's is one of them). */
  readonly arrivalBound: number;
  /** First arrival + total minimum resource-seconds / capacity, for the scarcest resource. */
  readonly workBound: number;
  readonly workBoundResource: string;
  readonly makespan: number;
}

export function lowerBounds(jobs: readonly WorkloadJob[], cluster: ClusterShape, startupSeconds: number): LowerBounds {
  const idealJct: Record<string, number> = {};
  let arrivalBound = 0;
  const totals: Record<string, number> = {};
  for (const job of jobs) {
    const ideal = idealRuntimeSeconds(job, cluster, startupSeconds);
    idealJct[job.name] = ideal;
    arrivalBound = Math.max(arrivalBound, job.submitSeconds + ideal);
    for (const [name, amount] of Object.entries(minimumResourceSeconds(job, cluster))) {
      totals[name] = (totals[name] ?? 0) + amount;
    }
  }
  const firstArrival = Math.min(...jobs.map((j) => j.submitSeconds));
  let workSeconds = 0;
  const capacities = clusterCapacity(cluster);
  let workBoundResource = 'none';
  for (const [name, amount] of Object.entries(totals)) {
    const capacity = capacities[name] ?? 0;
    if (capacity > 0 && amount / capacity > workSeconds) {
      workSeconds = amount / capacity;
      workBoundResource = name;
    }
  }
  const values = Object.values(idealJct);
  const workBound = firstArrival + workSeconds;
  return {
    idealJct,
    meanIdealJct: values.reduce((sum, v) => sum + v, 0) / values.length,
    arrivalBound,
    workBound,
    workBoundResource,
    makespan: Math.max(arrivalBound, workBound),
  };
}
