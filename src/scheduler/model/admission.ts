// Turning a placement into the replicas of an admitted job: plan entries for the caller and live
// state for the rest of the pass (a job admitted now can be scaled out in the same pass).

import type { ClusterState } from './cluster-state.ts';
import { anchorNodesOf } from './job-model.ts';
import type { CompiledJob, LiveReplica, PassModel, RunningJob } from './job-model.ts';
import type { Placement, PlacementItem } from './placement.ts';
import type { ReplicaInstance } from '../types.ts';

export function toInstance(state: ClusterState, r: LiveReplica): ReplicaInstance {
  // One object per replica (plans list thousands), with the same keys in the same order as
  // building it up would give: type, index, then node and createdAt when known.
  if (r.node >= 0) {
    const node = state.nodes[r.node]!.name;
    return r.createdAt === undefined
      ? { type: r.type, index: r.index, node }
      : { type: r.type, index: r.index, node, createdAt: r.createdAt };
  }
  return r.createdAt === undefined ? { type: r.type, index: r.index } : { type: r.type, index: r.index, createdAt: r.createdAt };
}

/**
 * Records `job` as running with the replicas of `placement` (already applied to the state), adds
 * it to the model's running jobs and returns its replica instances, fixed replicas first.
 */
export function admitPlaced(model: PassModel, job: CompiledJob, items: readonly PlacementItem[], placement: Placement): ReplicaInstance[] {
  const fixedReplicas: LiveReplica[] = [];
  const workers: LiveReplica[] = [];
  const workerType = job.workers?.type;
  for (let i = 0; i < items.length; i++) {
    const group = items[i]!.group;
    const isWorker = group === job.workers || group.type === workerType;
    const nodes = placement[i] ?? [];
    for (let index = 0; index < nodes.length; index++) {
      const r: LiveReplica = { type: group.type, index, node: nodes[index]!, createdAt: model.now };
      if (isWorker) workers.push(r);
      else fixedReplicas.push(r);
    }
  }
  const anchorNodes = anchorNodesOf(fixedReplicas);
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
  const out: ReplicaInstance[] = [];
  for (const r of fixedReplicas) out.push(toInstance(model.state, r));
  for (const r of workers) out.push(toInstance(model.state, r));
  return out;
}
