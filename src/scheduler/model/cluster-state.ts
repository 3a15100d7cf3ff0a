// The cluster model of one pass: idle resources per node and the indexes that keep a pass cheap.
//
// idle(n) = allocatable(n) − requests of every bound replica of the managed running jobs on n
//           − requests of every other pod on n                                (scheduling.md §5.4)
//
// Indexes, each kept exact under every change (`adjust`):
// - `order`: node indices by decreasing idle score, the "most idle first" order of the placement
//   rule (§4.1). Kept sorted incrementally and brought up to date when read (node-order.ts).
// - per walk (every ready node, or those a feasibility mask allows), a tree over those nodes that
//   finds the first node in that order with room for something without visiting the nodes
//   without room (fit-tree.ts); placement.ts walks these.
// - the exact largest idle amount of each resource on any ready node (a max tree): a replica that
//   does not fit these fits nowhere, which rejects most attempts in a full cluster in O(R).
// - per-resource sums of positive idle over ready nodes: a job whose total exceeds them cannot be
//   placed however it is split.
// - `epoch`, bumped on every change: results computed at an epoch stay valid while it is unchanged.
// Feasibility (taints, selectors, affinity) depends only on node and constraints, so it is computed
// once per distinct constraint set and pass as a per-node mask (`FeasibilityMasks`, feasibility-masks.ts).

import type { FeasibilityMasks } from './feasibility-masks.ts';
import { FitTree } from './fit-tree.ts';
import { MaxTree, SortedNodes } from './node-order.ts';
import { fitsAt } from './resource-vector.ts';
import type { ResourceIndex } from './resource-vector.ts';
import type { ClusterSnapshot, NodeInfo, OtherPod, Resources } from '../types.ts';

/** Nodes of a snapshot in canonical (name) order, so input order never changes a decision. */
export function canonicalNodes(snapshot: ClusterSnapshot): NodeInfo[] {
  return [...snapshot.nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every resource name the pass can meet, so all vectors share one layout. */
export function collectResourceNames(snapshot: ClusterSnapshot): Set<string> {
  const names = new Set<string>();
  // `for…in` over plain records: no array of keys per object (tens of thousands of pods per pass).
  const add = (r: Resources): void => {
    for (const k in r) names.add(k);
  };
  for (const n of snapshot.nodes) add(n.allocatable);
  for (const p of snapshot.otherPods) add(p.requests);
  for (const j of snapshot.jobs) {
    for (const g of j.spec.fixed) add(g.requests);
    if (j.spec.workers !== undefined) add(j.spec.workers.requests);
  }
  return names;
}

/** A pod's requests to subtract from a node (its vector and node index). */
export interface BoundLoad {
  readonly node: number;
  readonly vec: Float64Array;
}

/**
 * What every state of a pass starts from, per node at [n·R, (n+1)·R): allocatable, and idle =
 * allocatable − every other pod's requests (no managed job). Shared by the pass's states, never
 * changed.
 */
export interface ClusterBase {
  readonly alloc: Float64Array;
  readonly idle: Float64Array;
}

export function clusterBase(
  dims: ResourceIndex,
  nodes: readonly NodeInfo[],
  nodeIndex: ReadonlyMap<string, number>,
  otherPods: readonly OtherPod[],
): ClusterBase {
  const N = nodes.length;
  const R = dims.size;
  const alloc = new Float64Array(N * R);
  for (let n = 0; n < N; n++) dims.writeNodeAllocatable(nodes[n]!.allocatable, alloc, n * R);
  const idle = alloc.slice();
  // Each node's pods are subtracted in key order, as after sorting all pods by key (only the order
  // on one node can change a sum), so input order never changes a result, not even in the last bit.
  const P = otherPods.length;
  const nodeOf = new Int32Array(P);
  for (let i = 0; i < P; i++) nodeOf[i] = nodeIndex.get(otherPods[i]!.node) ?? -1;
  const start = new Int32Array(N + 1);
  for (let i = 0; i < P; i++) if (nodeOf[i]! >= 0) start[nodeOf[i]! + 1]!++;
  for (let n = 0; n < N; n++) start[n + 1]! += start[n]!;
  const fill = start.slice(0, N);
  const byNode = new Int32Array(start[N]!);
  for (let i = 0; i < P; i++) if (nodeOf[i]! >= 0) byNode[fill[nodeOf[i]!]!++] = i;
  const before = (a: number, b: number): boolean => {
    const c = compareKeys(otherPods[a]!.key, otherPods[b]!.key);
    return c < 0 || (c === 0 && a < b);
  };
  for (let n = 0; n < N; n++) {
    const from = start[n]!;
    const to = start[n + 1]!;
    // Most nodes hold a few pods: an insertion sort in place, no array per node (the order is
    // total, so any sort gives the same one).
    if (to - from > 16) {
      byNode.subarray(from, to).sort((a, b) => (a === b ? 0 : before(a, b) ? -1 : 1));
    } else {
      for (let k = from + 1; k < to; k++) {
        const x = byNode[k]!;
        let j = k - 1;
        while (j >= from && before(x, byNode[j]!)) {
          byNode[j + 1] = byNode[j]!;
          j--;
        }
        byNode[j + 1] = x;
      }
    }
    for (let k = from; k < to; k++) dims.subtractPodRequests(otherPods[byNode[k]!]!.requests, idle, n * R);
  }
  return { alloc, idle };
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class ClusterState {
  readonly dims: ResourceIndex;
  /** Resource count per node: vectors of node n live at [n·R, (n+1)·R). */
  readonly R: number;
  readonly nodes: readonly NodeInfo[];
  readonly nodeIndex: ReadonlyMap<string, number>;
  readonly masks: FeasibilityMasks;
  readonly alloc: Float64Array;
  readonly idle: Float64Array;
  /** Cluster-wide allocatable per resource (every node, ready or not: it must not churn). */
  readonly total: Float64Array;
  /** 1/total for resources that score "idleness" (all but pods), 0 otherwise. */
  readonly #scoreWeight: Float64Array;
  readonly ready: Uint8Array;
  readonly #score: Float64Array;
  /** Every node most idle first (built on first use). */
  #sorted: SortedNodes | undefined;
  /** Per feasibility mask, its ready feasible nodes most idle first (built on first use). */
  readonly #sortedByMask = new Map<number, SortedNodes>();
  /** Search trees over every ready node (key −1) or a mask's ready feasible nodes (built on first use). */
  readonly #trees = new Map<number, FitTree>();
  /** The values of `#sortedByMask` and `#trees` as arrays: `adjust` walks them at every change, without iterators. */
  readonly #sortedList: SortedNodes[] = [];
  readonly #treeList: FitTree[] = [];
  /** Exact per-resource maximum idle over ready nodes. */
  readonly #max: MaxTree;
  readonly #maxBuffer: Float64Array;
  readonly #freeSum: Float64Array;
  epoch = 0;
  /** The node of every change so far, in order: lets a derived value catch up on what changed since it was computed. */
  readonly changed: number[] = [];
  /** The epoch of the last change that freed resources: results that only get worse as nodes fill stay valid since. */
  lastFreedEpoch = 0;

  /**
   * Idle = `base.idle` − `loads`. `nodeIndex` must map each node's name to its index in `nodes`
   * (a pass builds it once for all its states).
   */
  constructor(
    dims: ResourceIndex,
    nodes: readonly NodeInfo[],
    masks: FeasibilityMasks,
    base: ClusterBase,
    loads: Iterable<BoundLoad>,
    nodeIndex: ReadonlyMap<string, number>,
  ) {
    this.dims = dims;
    this.R = dims.size;
    this.nodes = nodes;
    this.masks = masks;
    const N = nodes.length;
    const R = this.R;
    this.nodeIndex = nodeIndex;
    this.alloc = base.alloc;
    this.idle = base.idle.slice();
    this.total = new Float64Array(R);
    this.ready = new Uint8Array(N);
    for (let n = 0; n < N; n++) {
      const node = nodes[n]!;
      this.ready[n] = node.ready ? 1 : 0;
      for (let r = 0; r < R; r++) {
        const a = this.alloc[n * R + r]!;
        if (Number.isFinite(a)) this.total[r]! += a;
      }
    }
    for (const load of loads) {
      for (let r = 0; r < R; r++) this.idle[load.node * R + r]! -= load.vec[r]!;
    }
    this.#scoreWeight = new Float64Array(R);
    for (let r = 0; r < R; r++) {
      const t = this.total[r]!;
      if (r !== dims.podsDim && t > 0) this.#scoreWeight[r] = 1 / t;
    }
    this.#score = new Float64Array(N);
    for (let n = 0; n < N; n++) this.#score[n] = this.#computeScore(n);
    this.#max = new MaxTree(N, R, (n, r) => (this.ready[n] === 1 ? this.idle[n * R + r]! : Number.NEGATIVE_INFINITY));
    this.#maxBuffer = new Float64Array(R);
    this.#freeSum = new Float64Array(R);
    for (let n = 0; n < N; n++) {
      if (this.ready[n] === 0) continue;
      for (let r = 0; r < R; r++) this.#freeSum[r]! += Math.max(0, this.idle[n * R + r]!);
    }
  }

  /** Node indices, most idle first; ties by name (= index). NotReady nodes last. Changes with `adjust`. */
  get order(): Int32Array {
    this.#sorted ??= new SortedNodes(this.#score);
    return this.#sorted.order;
  }

  /** Each node's idle score (see `#computeScore`). */
  get score(): Float64Array {
    return this.#score;
  }

  /**
   * "How idle" a node is, one number to order nodes by: the sum over resources of idle / cluster
   * total. Normalising by the cluster total makes cpu (millicores), memory (bytes) and GPUs
   * (units) comparable, weights scarce resources more, and is the same on every node, so a node
   * with more idle of everything always ranks higher.
   */
  #computeScore(n: number): number {
    if (this.ready[n] === 0) return Number.NEGATIVE_INFINITY;
    let s = 0;
    const base = n * this.R;
    for (let r = 0; r < this.R; r++) {
      // Unscored resources (pods) may be unlimited: ∞ × 0 would make the score NaN.
      const w = this.#scoreWeight[r]!;
      if (w !== 0) s += this.idle[base + r]! * w;
    }
    return s;
  }

  /**
   * Changes a node's idle resources by `sign` × `vec` (−1 to place a replica, +1 to free one) and
   * keeps every index consistent.
   */
  adjust(n: number, vec: Float64Array, sign: 1 | -1): void {
    const R = this.R;
    const base = n * R;
    const isReady = this.ready[n] === 1;
    for (let r = 0; r < R; r++) {
      const d = vec[r]! * sign;
      if (d === 0) continue;
      const before = this.idle[base + r]!;
      const after = before + d;
      this.idle[base + r] = after;
      // Unlimited dimensions (a node without a pod-count limit) change no index.
      if (!isReady || !Number.isFinite(before)) continue;
      this.#freeSum[r]! += Math.max(0, after) - Math.max(0, before);
      this.#max.set(n, r, after);
    }
    this.epoch++;
    if (sign > 0) this.lastFreedEpoch = this.epoch;
    this.changed.push(n);
    // The sorted orders remember the score each node is still sorted by, so they hear first.
    this.#sorted?.invalidate(n);
    for (let k = 0; k < this.#sortedList.length; k++) this.#sortedList[k]!.invalidate(n);
    this.#score[n] = this.#computeScore(n);
    for (let k = 0; k < this.#treeList.length; k++) this.#treeList[k]!.invalidate(n);
  }

  /**
   * The ready nodes on which `maskId` allows a replica, most idle first (same order as `order`,
   * without the nodes a walk would only skip). Current as of the call: read it again after `adjust`.
   */
  orderFor(maskId: number): Int32Array {
    let sorted = this.#sortedByMask.get(maskId);
    if (sorted === undefined) {
      sorted = new SortedNodes(this.#score, this.#members(maskId));
      this.#sortedByMask.set(maskId, sorted);
      this.#sortedList.push(sorted);
    }
    return sorted.order;
  }

  /** The ready nodes `maskId` allows, or every ready node for `undefined`, ascending. */
  #members(maskId: number | undefined): Int32Array {
    const feasible = maskId === undefined ? undefined : this.masks.get(maskId).feasible;
    const ready = this.ready;
    // Counted first, then written: one exact array, not one grown push by push (thousands of
    // nodes, a dozen times per pass).
    let count = 0;
    for (let n = 0; n < ready.length; n++) if (ready[n] === 1 && (feasible === undefined || feasible[n] === 1)) count++;
    const members = new Int32Array(count);
    let k = 0;
    for (let n = 0; n < ready.length; n++) if (ready[n] === 1 && (feasible === undefined || feasible[n] === 1)) members[k++] = n;
    return members;
  }

  /**
   * The search tree over the nodes of `orderFor(maskId)`, or of the ready part of `order` for
   * `undefined`: the same nodes in the same order, for walks that skip nodes without room.
   */
  treeFor(maskId: number | undefined): FitTree {
    const key = maskId ?? -1;
    let tree = this.#trees.get(key);
    if (tree === undefined) {
      tree = new FitTree(this, this.nodes.length, this.#members(maskId));
      this.#trees.set(key, tree);
      this.#treeList.push(tree);
    }
    return tree;
  }

  /** A replica's size as one number: the sum of its cluster shares (pods aside). */
  normalizedSize(vec: Float64Array): number {
    let s = 0;
    for (let r = 0; r < this.R; r++) {
      const w = this.#scoreWeight[r]!;
      if (w !== 0) s += vec[r]! * w;
    }
    return s;
  }

  fits(n: number, vec: Float64Array): boolean {
    return fitsAt(vec, this.idle, n * this.R);
  }

  /** Exact per-resource maximum idle over ready nodes (a shared buffer: read it, do not keep it). */
  maxIdle(): Float64Array {
    return this.#max.fill(this.#maxBuffer);
  }

  /** Whether a vector fits the per-resource maxima: necessary for it to fit on any node. */
  fitsSomewhereBound(vec: Float64Array): boolean {
    for (let r = 0; r < this.R; r++) {
      const x = vec[r]!;
      if (x > 0 && x > this.#max.max(r)) return false;
    }
    return true;
  }

  /** Whether a total demand is at most the free capacity summed over ready nodes. */
  withinFreeSum(total: Float64Array): boolean {
    return fitsAt(total, this.#freeSum, 0);
  }

  idleOf(n: number): Resources {
    return this.dims.toResources(this.idle, n * this.R);
  }

  freeTotal(): Resources {
    return this.dims.toResources(this.#freeSum);
  }
}
