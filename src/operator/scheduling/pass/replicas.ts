// An admitted job's replicas as the core sees them: its live pods, the placements still pending (or
// expired), and the replicas it misses.
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE } from '../../../api/v1/constants.ts';
import { canonicalReplicaType } from '../../../api/v1/replica-types.ts';
import { replicaName } from '../../../reconciler/tfjob/index.ts';
import { isNodeFeasible, type JobSpec, type MissingReplica, type NodeInfo, type ReplicaInstance } from '../../../scheduler/index.ts';
import { pendingAlive, type DecisionView, type Pending } from '../decisions/decision.ts';
import { podNode, replicaIndexOf, replicaOf } from '../pod-facts.ts';
import type { JobShape } from './job-shape.ts';

export interface SettledPlacements {
  /** Placements that became pods or no longer fit their node: the book drops them. */
  readonly settledNames: string[];
  readonly pendingByName: ReadonlyMap<string, Pending>;
  readonly pendingWorkers: Pending[];
}

/**
 * Placements never observed expire (their create failed), and so do placements on a node that no
 * longer takes the pod (cordoned, NotReady, tainted or gone since the decision, while the pod
 * waited for a victim or a busy API): the job is then missing them, and they are placed again.
 */
export function settlePlacements(
  key: string,
  { raw, view }: JobShape,
  spec: JobSpec,
  decision: DecisionView,
  existing: ReadonlySet<string>,
  sources: { podCreatesInFlight(key: string): boolean },
  nodesByName: ReadonlyMap<string, NodeInfo>,
  now: number,
): SettledPlacements {
  const constraints = new Map(spec.fixed.map((g) => [g.type, g.constraints]));
  if (spec.workers !== undefined) constraints.set('Worker', spec.workers.constraints);
  // While the controller's creates for this job are in flight, a placement it was handed may still
  // become a pod on its node whatever changed since (a slow API, a cordon meanwhile): its room stays
  // taken until the create is seen or has failed, or another pod could be placed into it.
  const creating = sources.podCreatesInFlight(key);
  const stillFits = (p: Pending, type: string | undefined): boolean => {
    const node = nodesByName.get(p.node);
    if (node === undefined) return false;
    if (creating) return true;
    const c = type === undefined ? undefined : constraints.get(type);
    return pendingAlive(p, now) && c !== undefined && isNodeFeasible(node, c);
  };
  const settledNames: string[] = [];
  const pendingByName = new Map<string, Pending>();
  for (const [name, p] of decision.pendingByName) {
    if (existing.has(name) || !stillFits(p, replicaOf(Object.keys(view.replicaSpecs), name, raw.metadata.name)?.[0]))
      settledNames.push(name);
    else pendingByName.set(name, p);
  }
  return { settledNames, pendingByName, pendingWorkers: decision.pendingWorkers.filter((p) => stillFits(p, 'Worker')) };
}

/** An admitted job's replicas (its live pods and pending placements) and the replicas it misses. */
export function replicasAndHoles(
  key: string,
  { raw, view }: JobShape,
  spec: JobSpec,
  decision: DecisionView,
  live: ReadonlyMap<string, V1Pod>,
  existing: ReadonlySet<string>,
  { pendingByName, pendingWorkers }: SettledPlacements,
  elastic: boolean,
): { replicas: ReplicaInstance[]; missing: MissingReplica[] } {
  const replicas: ReplicaInstance[] = [];
  const missing: MissingReplica[] = [];
  for (const p of live.values()) {
    const type = canonicalReplicaType(p.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? '') ?? '';
    const index = Number(p.metadata?.labels?.[LABEL_REPLICA_INDEX] ?? -1);
    const node = podNode(p);
    if (node === undefined) continue;
    replicas.push({
      type,
      index,
      node,
      ...(p.metadata?.creationTimestamp ? { createdAt: new Date(p.metadata.creationTimestamp).getTime() } : {}),
    });
  }
  // Assumed: placements decided but not yet visible as pods. Marked pending: the core never removes
  // them (the controller may be creating the pod; scaling such a placement in once gave its room to
  // another job while the pod still came: an over-commit under load).
  for (const [name, p] of pendingByName) {
    const replica = replicaOf(Object.keys(view.replicaSpecs), name, raw.metadata.name);
    if (replica !== undefined) replicas.push({ type: replica[0], index: replica[1], node: p.node, createdAt: p.since, pending: true });
  }
  const used = new Set<number>();
  for (const n of existing) {
    const i = replicaIndexOf(n, raw.metadata.name, 'worker');
    if (i !== undefined) used.add(i);
  }
  let next = 0;
  for (const p of pendingWorkers) {
    while (used.has(next)) next += 1;
    used.add(next);
    replicas.push({ type: 'Worker', index: next, node: p.node, createdAt: p.since, pending: true });
  }
  // Holes: fixed replicas with no pod and no pending placement; workers below target.
  const hole = (name: string) => !existing.has(name) && !pendingByName.has(name);
  for (const g of spec.fixed) {
    for (let i = 0; i < g.count; i++) {
      const name = replicaName(raw.metadata.name, g.type, i);
      if (hole(name)) missing.push({ job: key, group: g, name });
    }
  }
  if (spec.workers === undefined) return { replicas, missing };
  if (elastic) {
    const have = replicas.filter((r) => r.type === 'Worker').length;
    // Never above the maximum: slots given up lower it, and a worker placed there is never created.
    const target = Math.min(decision.targetWorkers, spec.workers.max);
    for (let i = have; i < target; i++) missing.push({ job: key, group: spec.workers });
  } else {
    for (let i = 0; i < spec.workers.max; i++) {
      const name = replicaName(raw.metadata.name, 'Worker', i);
      if (hole(name)) missing.push({ job: key, group: spec.workers, name });
    }
  }
  return { replicas, missing };
}
