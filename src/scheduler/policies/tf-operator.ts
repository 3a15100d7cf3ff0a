// `tf-operator` baseline: Kubeflow's tf-operator with the default kube-scheduler, as in the paper's
// experiment (scheduling.md §7).
//
// - At submission every replica is created at its full count (fixed replicas and `max` workers):
//   the whole job is admitted at once, whatever the cluster holds.
// - Each pod is then placed on its own, in the scheduler queue's order: PrioritySort (pod priority,
//   i.e. the job's PriorityClass value, higher first), then creation time, i.e. FIFO. Ties (pods
//   created in the same pass) by the job's t_j and key, then replica type and index. tf-operator
//   creates replica types in Go map order, which cannot be reproduced; we use PS first, then the
//   other fixed types by name, then workers (the order `job-model.ts` gives fixed groups).
// - A pod goes to the feasible node with the most free resources after placing it, as the
//   NodeResourcesFit LeastAllocated score does: the mean over cpu and memory of
//   (allocatable − requested) / allocatable; among equal scores, deterministically the one a
//   freer-first search meets first (in practice the lowest name among equally free nodes; the real
//   scheduler picks among ties at random). Other default score plugins are not modelled, nor the scheduler's sampling of
//   nodes in large clusters, nor its non-zero default requests for scoring.
// - A pod that fits nowhere stays Pending (`node` undefined) and holds nothing; later passes bind it
//   (`Plan.bind`) when room appears. No preemption, no scaling. Partial allocation and deadlock
//   (two jobs each holding part of what both need) happen exactly as they do for real.

import { sortedWeights, PlanBuilder } from '../model/plan-builder.ts';
import { buildPassModel } from '../model/pass-model.ts';
import type { CompiledGroup, CompiledJob } from '../model/job-model.ts';
import type { ClusterState } from '../model/cluster-state.ts';
import { ScoreTree } from '../model/node-order.ts';
import { CPU, MEMORY } from '../model/resources.ts';
import type { ReplicaInstance } from '../types.ts';
import type { SchedulingPolicy } from './policy.ts';

interface PendingPod {
  readonly job: CompiledJob;
  readonly group: CompiledGroup;
  readonly index: number;
  readonly createdAt: number;
  /** Position of the group in the job: PS first, then other fixed groups, workers last. */
  readonly groupOrder: number;
  /** Already exists (a bind) rather than created by this pass's admission. */
  readonly existing: boolean;
}

function comparePods(a: PendingPod, b: PendingPod): number {
  if (a.job.priority !== b.job.priority) return b.job.priority - a.job.priority;
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.job.submittedAt !== b.job.submittedAt) return a.job.submittedAt - b.job.submittedAt;
  if (a.job.key !== b.job.key) return a.job.key < b.job.key ? -1 : 1;
  return a.groupOrder - b.groupOrder || a.index - b.index;
}

/**
 * LeastAllocated over cpu and memory: the score of node n for a pod is the mean over the two of
 * (idle − request) / allocatable. Scanning every node for every pod costs O(pods × nodes).
 * Instead nodes are grouped by feasibility mask and by allocatable cpu and memory ("shape"):
 * within a shape a pod lowers every node's score by the same amount, so the best node of a shape
 * is the freest one that fits. Each group keeps its nodes in a tournament tree of free share
 * (`free(n)`, the score without the request) and per-resource idle maxima, which finds that node
 * in about O(log N). The best shape wins. Among equal scores the choice is deterministic but
 * otherwise arbitrary (usually the lowest name), as the real scheduler's random pick among ties.
 */
export class LeastAllocated {
  readonly #state: ClusterState;
  readonly #dims: readonly number[];
  readonly #shapeOf: readonly string[];
  readonly #byMask = new Map<number, Map<string, ScoreTree>>();

  constructor(state: ClusterState) {
    this.#state = state;
    this.#dims = [state.dims.position(CPU), state.dims.position(MEMORY)].filter((d): d is number => d !== undefined);
    this.#shapeOf = state.nodes.map((_, n) => this.#dims.map((d) => state.alloc[n * state.R + d]!).join(','));
  }

  /** Mean free share over the scored dimensions a node has (after `request`, if given). */
  score(n: number, request: Float64Array): number {
    return this.#free(n, request);
  }

  #free(n: number, request?: Float64Array): number {
    const st = this.#state;
    let sum = 0;
    let terms = 0;
    for (const d of this.#dims) {
      const alloc = st.alloc[n * st.R + d]!;
      if (alloc <= 0) continue;
      sum += (st.idle[n * st.R + d]! - (request?.[d] ?? 0)) / alloc;
      terms++;
    }
    return terms === 0 ? 0 : sum / terms;
  }

  #groupsFor(maskId: number): Map<string, ScoreTree> {
    let entry = this.#byMask.get(maskId);
    if (entry === undefined) {
      const st = this.#state;
      const feasible = st.masks.get(maskId).feasible;
      const members = new Map<string, number[]>();
      for (let n = 0; n < feasible.length; n++) {
        if (feasible[n] === 0 || st.ready[n] === 0) continue;
        const shape = this.#shapeOf[n]!;
        const list = members.get(shape);
        if (list === undefined) members.set(shape, [n]);
        else list.push(n);
      }
      const trees = new Map<string, ScoreTree>();
      for (const [shape, list] of [...members].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        trees.set(
          shape,
          new ScoreTree(
            feasible.length,
            list,
            st.R,
            (n) => this.#free(n),
            (n, r) => st.idle[n * st.R + r]!,
          ),
        );
      }
      entry = trees;
      this.#byMask.set(maskId, entry);
    }
    return entry;
  }

  best(group: CompiledGroup, noRoom: Set<string>): number {
    const st = this.#state;
    if (noRoom.has(group.shapeKey) || !st.fitsSomewhereBound(group.vec)) return -1;
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const tree of this.#groupsFor(group.maskId).values()) {
      // Within a shape a pod lowers every score equally, so the freest fitting node is the best.
      let found = -1;
      let foundFree = Number.NEGATIVE_INFINITY;
      tree.search(
        group.vec,
        (subtreeMax) => subtreeMax <= foundFree,
        (n, free) => {
          if (free > foundFree && st.fits(n, group.vec)) {
            found = n;
            foundFree = free;
          }
        },
      );
      if (found < 0) continue;
      const score = this.#free(found, group.vec);
      if (score > bestScore || (score === bestScore && found < best)) {
        bestScore = score;
        best = found;
      }
    }
    if (best < 0) noRoom.add(group.shapeKey);
    return best;
  }

  place(n: number, group: CompiledGroup): void {
    const st = this.#state;
    st.adjust(n, group.vec, -1);
    const free = this.#free(n);
    const shape = this.#shapeOf[n]!;
    for (const trees of this.#byMask.values()) trees.get(shape)?.set(n, free, st.idle, n * st.R);
  }
}

export const tfOperatorPolicy: SchedulingPolicy = {
  name: 'tf-operator',
  description:
    'Kubeflow tf-operator + default scheduler: all replicas at max count on submission, per-pod LeastAllocated placement, FIFO, no preemption or scaling',
  schedule(snapshot, config) {
    const model = buildPassModel(snapshot, config);
    const { state, now } = model;
    const plan = new PlanBuilder();
    const pods: PendingPod[] = [];

    for (const running of model.running) {
      const job = running.job;
      const groups: CompiledGroup[] = [...job.fixed, ...(job.workers === undefined ? [] : [job.workers])];
      for (const r of job.state.replicas) {
        if (r.node !== undefined) continue;
        const groupOrder = groups.findIndex((g) => g.type === r.type);
        if (groupOrder < 0) continue;
        pods.push({
          job,
          group: groups[groupOrder]!,
          index: r.index,
          createdAt: r.createdAt ?? job.submittedAt,
          groupOrder,
          existing: true,
        });
      }
    }
    for (const job of model.waiting) {
      const groups: { group: CompiledGroup; count: number }[] = job.fixed.map((g) => ({ group: g, count: g.count }));
      if (job.workers !== undefined) groups.push({ group: job.workers, count: job.workers.max });
      groups.forEach(({ group, count }, groupOrder) => {
        for (let index = 0; index < count; index++) pods.push({ job, group, index, createdAt: now, groupOrder, existing: false });
      });
    }
    pods.sort(comparePods);

    const noRoom = new Set<string>();
    const scorer = new LeastAllocated(state);
    const created = new Map<string, ReplicaInstance[]>();
    for (const job of [...model.waiting].sort(
      (a, b) => b.priority - a.priority || a.submittedAt - b.submittedAt || (a.key < b.key ? -1 : 1),
    )) {
      created.set(job.key, []);
    }
    const placed = new Map<PendingPod, ReplicaInstance>();
    for (const pod of pods) {
      const n = scorer.best(pod.group, noRoom);
      const instance: ReplicaInstance =
        n >= 0
          ? { type: pod.group.type, index: pod.index, node: state.nodes[n]!.name, createdAt: pod.createdAt }
          : { type: pod.group.type, index: pod.index, createdAt: pod.createdAt };
      if (n >= 0) scorer.place(n, pod.group);
      if (pod.existing) {
        if (n >= 0) plan.bind(pod.job.key, instance);
      } else {
        placed.set(pod, instance);
      }
    }
    // Admissions list replicas in the job's own order (PS first, then by type and index).
    const own = [...placed].sort(([a], [b]) => a.groupOrder - b.groupOrder || a.index - b.index);
    for (const [pod, instance] of own) created.get(pod.job.key)?.push(instance);
    for (const [job, replicas] of created) plan.admit(job, replicas);

    return plan.build([], sortedWeights([...model.jobs.values()].map((j) => [j.key, j.baseWeight] as const)));
  },
};
