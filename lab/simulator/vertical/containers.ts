// The simulator's running containers as a vertical rule sees them (src/scheduler/vertical/limits.ts's
// ContainerCpu): one `tensorflow` container per replica that is bound and past its start-up.
import type { ContainerCpu } from '../../../src/scheduler/vertical/flowcon/index.ts';
import type { ClusterState, SimJob, SimReplica } from '../state.ts';
import { PS } from '../state.ts';
import type { CpuModelOptions } from './options.ts';

export interface SimContainer extends ContainerCpu {
  readonly job: SimJob;
  readonly demandMillis: number;
  readonly replicaType: string;
  readonly index: number;
}

export const containerId = (job: SimJob, r: Pick<SimReplica, 'type' | 'index'>): string =>
  `${job.workload.name}-${r.type.toLowerCase()}-${r.index}`;

/** Millicores of CPU a node can give its containers. */
export function nodeCpuMillis(state: ClusterState, node: string): number {
  return state.nodes.find((n) => n.name === node)?.allocatable['cpu'] ?? 0;
}

/**
 * Containers of running jobs' bound replicas, in start-up or not (a pod the kubelet runs, as the
 * operator's caches see it); `limits` holds the limits set since their pods started.
 */
export function boundContainers(
  state: ClusterState,
  limits: ReadonlyMap<string, number>,
  options: CpuModelOptions,
  ready: (r: SimReplica) => boolean = () => true,
): SimContainer[] {
  const out: SimContainer[] = [];
  for (const job of state.jobs) {
    if (job.phase !== 'running') continue;
    for (const r of job.replicas.values()) {
      if (r.node === undefined || r.boundAt === undefined || !ready(r)) continue;
      const requestMillis = r.requests['cpu'] ?? 0;
      const templateLimitMillis = options.limitFactor === undefined ? nodeCpuMillis(state, r.node) : options.limitFactor * requestMillis;
      const pod = containerId(job, r);
      const set = limits.get(pod);
      out.push({
        job,
        pod,
        container: 'tensorflow',
        node: r.node,
        requestMillis,
        limitMillis: set ?? templateLimitMillis,
        templateLimitMillis,
        ...(set === undefined ? {} : { setByUsMillis: set }),
        demandMillis: (r.type === PS ? options.psDemandFactor : options.workerDemandFactor) * requestMillis,
        replicaType: r.type,
        index: r.index,
      });
    }
  }
  return out;
}

/** Running containers of running jobs: bound and past their start-up (they use CPU). */
export function runningContainers(
  state: ClusterState,
  now: number,
  startupSeconds: number,
  limits: ReadonlyMap<string, number>,
  options: CpuModelOptions,
): SimContainer[] {
  return boundContainers(state, limits, options, (r) => r.boundAt! + startupSeconds <= now);
}
