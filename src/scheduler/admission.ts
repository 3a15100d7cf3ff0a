// Turning a placement into the replicas of an admitted job: plan entries for the caller and live
// state for the rest of the pass (a job admitted now can be scaled out in the same pass).

import type { ClusterState } from './cluster-state.ts';
import { isPsType } from './job-model.ts';
import type { CompiledJob, LiveReplica, PassModel, RunningJob } from './job-model.ts';
import type { Placement, PlacementItem } from './placement.ts';
import type { ReplicaInstance } from './types.ts';

export function toInstance(state: ClusterState, r: LiveReplica): ReplicaInstance {
  const base = { type: r.type, index: r.index };
  const withNode = r.node >= 0 ? { ...base, node: state.nodes[r.node]!.name } : base;
  return r.createdAt === undefined ? withNode : { ...withNode, createdAt: r.createdAt };
}

/**
 * Records `job` as running with the replicas of `placement` (already applied to the state), adds
 * it to the model's running jobs and returns its replica instances, fixed replicas first.
 */
export function admitPlaced(model: PassModel, job: CompiledJob, items: readonly PlacementItem[], placement: Placement): ReplicaInstance[] {
  const fixedReplicas: LiveReplica[] = [];
  const workers: LiveReplica[] = [];
  const workerType = job.workers?.type;
  items.forEach((it, i) => {
    (placement[i] ?? []).forEach((node, index) => {
      const r: LiveReplica = { type: it.group.type, index, node, createdAt: model.now };
      if (it.group === job.workers || it.group.type === workerType) workers.push(r);
      else fixedReplicas.push(r);
    });
  });
  const ps = fixedReplicas.filter((r) => isPsType(r.type));
  const anchorNodes = new Set((ps.length > 0 ? ps : fixedReplicas).map((r) => r.node));
  const running: RunningJob = {
    job,
    fixedReplicas,
    workers,
    anchorNodes,
    removedIndices: new Set(),
    podlessIndices: new Set(),
    scaledInThisPass: false,
    admittedThisPass: true,
  };
  model.running.push(running);
  model.runningByKey.set(job.key, running);
  return [...fixedReplicas, ...workers].map((r) => toInstance(model.state, r));
}
