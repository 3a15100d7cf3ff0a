// What a job could do alone on an empty cluster: the basis of every lower bound we report.
import type { Resources } from '../../src/scheduler/types.ts';
import type { ClusterShape, ReplicaPlacement, WorkloadJob } from './model.ts';
import { nodeNames } from './model.ts';
import { addResources, fitsIn } from './resources.ts';
import { progressRate } from './throughput.ts';

/**
 * The job's PS and `workers` workers on as few empty nodes as possible: fill the first node with
 * the PS then workers, spill to the next only when the next replica does not fit. Undefined when
 * the cluster is too small or a single replica fits on no node.
 */
export function fewestNodesPlacement(job: WorkloadJob, workers: number, cluster: ClusterShape): ReplicaPlacement | undefined {
  const names = nodeNames(cluster);
  const ps: string[] = [];
  const placedWorkers: string[] = [];
  let nodeIndex = 0;
  let used: Resources = {};
  const place = (requests: Resources, into: string[]): boolean => {
    while (nodeIndex < names.length) {
      const next = addResources(used, requests);
      if (fitsIn(next, cluster.allocatable)) {
        used = next;
        into.push(names[nodeIndex]!);
        return true;
      }
      if (Object.keys(used).length === 0) return false; // does not fit even on an empty node
      nodeIndex += 1;
      used = {};
    }
    return false;
  };
  for (let i = 0; i < job.ps.count; i++) if (!place(job.ps.requests, ps)) return undefined;
  for (let i = 0; i < workers; i++) if (!place(job.workers.requests, placedWorkers)) return undefined;
  return { ps, workers: placedWorkers };
}

/** Rate with `workers` workers on the fewest nodes; 0 when they cannot be placed at all. */
export function fewestNodesRate(job: WorkloadJob, workers: number, cluster: ClusterShape): number {
  const placement = fewestNodesPlacement(job, workers, cluster);
  return placement === undefined ? 0 : progressRate(job, placement);
}

/**
 * Ideal runtime (docs/simulation-results.md §1): maximum workers on the fewest nodes, no queueing, plus the
 * replica start-up every run pays once.
 */
export function idealRuntimeSeconds(job: WorkloadJob, cluster: ClusterShape, startupSeconds: number): number {
  const rate = fewestNodesRate(job, job.workers.max, cluster);
  if (rate <= 0) throw new Error(`job ${job.name} cannot run at its maximum size on an empty cluster`);
  return startupSeconds + job.work / rate;
}

/** Requests of the job with `workers` workers. */
export function jobRequests(job: WorkloadJob, workers: number): Resources {
  return addResources(addResources({}, job.ps.requests, job.ps.count), job.workers.requests, workers);
}

/**
 * The fewest resource-seconds the job can finish with, per resource: whatever sizes it runs at over
 * time, each resource it holds per unit of work is at least the best ratio over its allowed sizes.
 */
export function minimumResourceSeconds(job: WorkloadJob, cluster: ClusterShape): Resources {
  const best: Record<string, number> = {};
  for (let w = Math.max(job.workers.min, 1); w <= job.workers.max; w++) {
    const rate = fewestNodesRate(job, w, cluster);
    if (rate <= 0) continue;
    for (const [name, amount] of Object.entries(jobRequests(job, w))) {
      const perWork = (amount / rate) * job.work;
      best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, perWork);
    }
  }
  return best;
}
