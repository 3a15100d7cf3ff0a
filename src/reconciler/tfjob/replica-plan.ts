// Which replica indices to create and which pods/services to delete, per replica type
// (tf-operator's ReconcilePods/ReconcileServices slices, and our elastic variant).

import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import { isRemovedByOperator, isTerminating, podName, replicaIndex } from './pod-state.ts';

export interface PodPlan {
  /** Indices that have no pod: create one each. */
  readonly create: readonly number[];
  /** Pods to delete because their index is no longer wanted (scale-down / scale-in). */
  readonly remove: readonly Pod[];
  /** Indices whose pods should exist after this pass (for the services). */
  readonly wanted: ReadonlySet<number>;
  /** Indices whose services stay: the wanted ones, and free slots the next create fills first. */
  readonly keptServices: ReadonlySet<number>;
  /** Indices holding more than one pod (tf-operator only logs a warning). */
  readonly duplicated: readonly number[];
}

function byIndex<T extends Pod | Service>(objects: readonly T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const o of objects) {
    const index = replicaIndex(o);
    if (index === undefined) continue; // tf-operator skips objects without a usable index label
    map.set(index, [...(map.get(index) ?? []), o]);
  }
  return map;
}

/**
 * Fixed size: indices 0..replicas-1 must exist (scale-up creates the missing ones), pods at an index
 * >= replicas are deleted (scale-down removes the highest indices). Unlike tf-operator, an empty index
 * above `replicas` (a gap left by a deleted pod) is not created just to be deleted next pass.
 */
export function planFixedPods(pods: readonly Pod[], replicas: number): PodPlan {
  const indexed = byIndex(pods);
  const create: number[] = [];
  const remove: Pod[] = [];
  const duplicated: number[] = [];
  for (let i = 0; i < replicas; i++) if (!indexed.has(i)) create.push(i);
  for (const [index, atIndex] of [...indexed].sort(([a], [b]) => a - b)) {
    if (atIndex.length > 1) duplicated.push(index);
    else if (index >= replicas) remove.push(...atIndex);
  }
  const wanted = new Set(Array.from({ length: Math.max(0, replicas) }, (_, i) => i));
  return { create, remove, wanted, keptServices: wanted, duplicated };
}

/**
 * Elastic workers: `target` pods should be live (not being deleted, not removed by the scheduler).
 * Short → create at the lowest indices no pod occupies (a terminating pod still holds its name);
 * over → delete the live pods with the highest indices. Indices therefore stay dense from 0 where
 * possible, and a scale-in never takes worker 0 while a higher one exists. `givenUp` slots keep their
 * failed pod (and so their index) but are not live: they are never replaced nor scaled in. Nothing is
 * created at or above `slots` (the elastic maximum: TF_CONFIG lists only slots below it); while every
 * free slot is still held by a terminating pod (a migrated worker), the create waits for it.
 */
export function planElasticPods(
  pods: readonly Pod[],
  target: number,
  givenUp: ReadonlySet<number> = new Set(),
  slots = Number.POSITIVE_INFINITY,
): PodPlan {
  const indexed = byIndex(pods);
  const duplicated = [...indexed].filter(([, atIndex]) => atIndex.length > 1).map(([i]) => i);
  const live = [...indexed]
    .filter(([i, atIndex]) => !givenUp.has(i) && atIndex.some((p) => !isTerminating(p) && !isRemovedByOperator(p)))
    .map(([i]) => i)
    .sort((a, b) => a - b);
  const create: number[] = [];
  const remove: Pod[] = [];
  // A given-up slot keeps its service (the others' TF_CONFIG still names it), as before it failed.
  const wanted = new Set([...live, ...[...givenUp].filter((i) => indexed.has(i))]);
  if (live.length < target) {
    for (let i = 0; create.length < target - live.length && i < slots; i++) {
      if (!indexed.has(i)) {
        create.push(i);
        wanted.add(i);
      }
    }
  } else if (live.length > target) {
    for (const index of live.slice(target).reverse()) {
      remove.push(...(indexed.get(index) ?? []));
      wanted.delete(index);
    }
  }
  return { create, remove, wanted, keptServices: withFreeSlotsBelow(wanted, indexed), duplicated };
}

/**
 * `wanted` plus the slots below its highest index that no pod occupies. Creates fill the lowest free
 * slot first, so such a hole (a create lost with the operator that sent it, a worker lost) is the
 * next one the job refills, worker 0 above all; its service stays, as TF_CONFIG still names it.
 */
function withFreeSlotsBelow(wanted: ReadonlySet<number>, indexed: ReadonlyMap<number, readonly Pod[]>): Set<number> {
  const kept = new Set(wanted);
  const highest = Math.max(-1, ...wanted);
  for (let i = 0; i < highest; i++) if (!indexed.has(i)) kept.add(i);
  return kept;
}

export interface ServicePlan {
  readonly create: readonly number[];
  readonly remove: readonly Service[];
}

/** A service for every wanted index; services of other indices are deleted. */
export function planServices(services: readonly Service[], wanted: ReadonlySet<number>): ServicePlan {
  const indexed = byIndex(services);
  const create = [...wanted].filter((i) => !indexed.has(i)).sort((a, b) => a - b);
  const remove: Service[] = [];
  for (const [index, atIndex] of [...indexed].sort(([a], [b]) => a - b)) {
    if (!wanted.has(index) && atIndex.length === 1) remove.push(...atIndex.filter((s) => !isTerminating(s)));
  }
  return { create, remove };
}

/**
 * A worker this reconcile scales in keeps its service until its removal is in the API (marked or
 * deleted; the next reconcile deletes the service then): sent together, the service's delete could
 * succeed where the pod's mark failed or never went out (the operator killed in between), leaving a
 * live worker without its service, deleted for no reason the job has.
 */
export function scalingIn(plan: PodPlan, name: string): boolean {
  return plan.remove.some((p) => podName(p) === name && !isTerminating(p) && !isRemovedByOperator(p));
}
