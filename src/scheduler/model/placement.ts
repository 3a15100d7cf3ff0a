// The placement rule (paper §4.1, scheduling.md §4.1): put a job's replicas on as few nodes as
// possible to cut PS↔worker gRPC traffic.
//   1. If one node can hold every replica (and every replica's constraints allow it), use it; the
//      most idle such node.
//   2. Otherwise walk nodes from the most idle down and put on each node as many of the remaining
//      replicas as fit there, PS first, so the PS and as many workers as possible share a node.
//      If that walk fails, it is repeated once with the largest replicas first (a PS placed first
//      can take the room a bigger worker needed).
// "The job fits" (Algorithm 1's "idle resources ≥ min resources required", §5.3) means exactly
// that this rule finds a placement: a real per-node packing, never a comparison of sums. The rule
// is a greedy heuristic, so it may miss a packing an exhaustive search would find; being the same
// test everywhere (admission, scale-in, explanations) keeps every decision consistent with it.

import type { ClusterState } from './cluster-state.ts';
import type { FeasibilityMask } from './feasibility-masks.ts';
import type { CompiledGroup, CompiledJob, ConfigurationItem } from './job-model.ts';
import type { FitTree } from './fit-tree.ts';
import { fitsAt } from './resource-vector.ts';

export type PlacementItem = ConfigurationItem;

/** Node index of every replica, per item, in item order. */
export type Placement = readonly (readonly number[])[];

export type PlacementFailure =
  /** No node passes the group's constraints at all. */
  | { readonly kind: 'no-feasible-node'; readonly group: CompiledGroup }
  /** Not enough room on the feasible nodes: only `placed` of `count` replicas of `group` found (or could find) room. */
  | { readonly kind: 'insufficient'; readonly group: CompiledGroup; readonly placed: number; readonly count: number };

export type PlacementOutcome =
  { readonly ok: true; readonly placement: Placement } | { readonly ok: false; readonly failure: PlacementFailure };

/** The minimum configuration: every fixed replica and the minimum workers (one shared list per job and pass). */
export function minimumItems(job: CompiledJob): readonly PlacementItem[] {
  return job.minimum;
}

/** The maximum configuration (gang admission, tf-operator): every fixed replica and the maximum workers. */
export function maximumItems(job: CompiledJob): PlacementItem[] {
  const items: PlacementItem[] = job.fixed.map((g) => ({ group: g, count: g.count }));
  if (job.workers !== undefined && job.workers.max > 0) items.push({ group: job.workers, count: job.workers.max });
  return items;
}

/** The `findPlacement` cache key of a job's minimum configuration: shared by jobs of the same shape. */
export function minimumKey(job: CompiledJob): string {
  return job.minimumKey;
}

/** A memo per cluster state (one pass): forgotten with the state. */
function perState<V>(): (state: ClusterState) => Map<string, V> {
  const memo = new WeakMap<ClusterState, Map<string, V>>();
  return (state) => {
    let m = memo.get(state);
    if (m === undefined) {
      m = new Map();
      memo.set(state, m);
    }
    return m;
  };
}

// Results are cached per state, job shape and epoch: the same shape on an unchanged cluster gets the
// same answer, and in a full cluster most waiting jobs share a few shapes and all fail.
const cacheFor = perState<{ epoch: number; outcome: PlacementOutcome }>();

/**
 * Finds a placement of `items` on the current idle resources of `state` without changing them.
 * `cacheKey` (e.g. the job's signature plus "min"/"max") enables memoisation. `allowed`, when
 * given, restricts the candidate nodes (1 = may be used), e.g. to keep clear of, or to use only,
 * the nodes reserved for a starving job; such a search is never cached.
 */
export function findPlacement(
  state: ClusterState,
  items: readonly PlacementItem[],
  cacheKey?: string,
  allowed?: Uint8Array,
): PlacementOutcome {
  if (allowed !== undefined) return computePlacement(state, items, allowed);
  if (cacheKey !== undefined) {
    const hit = cacheFor(state).get(cacheKey);
    if (hit !== undefined && hit.epoch === state.epoch) return hit.outcome;
  }
  const outcome = computePlacement(state, items, undefined);
  if (cacheKey !== undefined) cacheFor(state).set(cacheKey, { epoch: state.epoch, outcome });
  return outcome;
}

/** The distinct nodes a placement uses, as a node mask. */
export function nodesOf(state: ClusterState, placement: Placement): Uint8Array {
  const mask = new Uint8Array(state.nodes.length);
  for (const nodes of placement) for (const n of nodes) mask[n] = 1;
  return mask;
}

// Standalone capacity of a replica shape (how many fit on all usable nodes together), learnt from
// failed walks. Capacity only shrinks while nodes only fill, so until something is freed a cached
// value is an upper bound, and a job needing more replicas of that shape fails without a walk.
const capacitiesFor = perState<{ epoch: number; capacity: number }>();

// Scratch vectors of one search (0: the job's total, 1: a node's room during a walk), reused:
// a search runs thousands of times per pass and never keeps them, nor calls itself.
const scratchVectors: Float64Array[] = [new Float64Array(0), new Float64Array(0)];

/** Scratch vector `which`, R zeros. */
function scratch(which: 0 | 1, R: number): Float64Array {
  let v = scratchVectors[which]!;
  if (v.length !== R) {
    v = new Float64Array(R);
    scratchVectors[which] = v;
  } else v.fill(0);
  return v;
}

function computePlacement(state: ClusterState, items: readonly PlacementItem[], allowed: Uint8Array | undefined): PlacementOutcome {
  const live = items.every((it) => it.count > 0) ? items : items.filter((it) => it.count > 0);
  if (live.length === 0) return { ok: true, placement: items.map(() => []) };
  const R = state.R;
  const total = scratch(0, R);
  // Index loops throughout: this runs thousands of times per pass, and an iterator per loop adds up.
  for (let i = 0; i < live.length; i++) {
    const it = live[i]!;
    for (let r = 0; r < R; r++) total[r]! += it.group.vec[r]! * it.count;
  }
  const feasible = live.map((it) => state.masks.get(it.group.maskId));
  for (let i = 0; i < live.length; i++) {
    if (feasible[i]!.feasibleCount === 0) return { ok: false, failure: { kind: 'no-feasible-node', group: live[i]!.group } };
  }

  // Cheap necessary conditions first: each replica must fit the largest idle amounts, and all of
  // them the summed free capacity.
  const maxIdle = state.maxIdle();
  for (let i = 0; i < live.length; i++) {
    const it = live[i]!;
    if (!fitsAt(it.group.vec, maxIdle, 0))
      return { ok: false, failure: { kind: 'insufficient', group: it.group, placed: 0, count: it.count } };
  }
  // Remembered capacities describe the whole cluster; a restricted search neither uses nor teaches them.
  const capacities = allowed === undefined ? capacitiesFor(state) : undefined;
  for (let i = 0; i < live.length; i++) {
    const it = live[i]!;
    const known = capacities?.get(it.group.shapeKey);
    if (known !== undefined && known.epoch >= state.lastFreedEpoch && known.capacity < it.count) {
      return { ok: false, failure: { kind: 'insufficient', group: it.group, placed: known.capacity, count: it.count } };
    }
  }
  // A restricted search (backfill off a starving job's reservation, or a starving job on its
  // reservation alone) is never cached and in a busy cluster almost always fails, after a walk over
  // every allowed node with room for some replica. An item with fewer places on the allowed nodes
  // than it has replicas fails it for certain, so counting them answers first (item by item, up to
  // the first that fails: the same first failure as counting all).
  if (allowed !== undefined) {
    const few = fewAllowed(allowed);
    for (let i = 0; i < live.length; i++) {
      const it = live[i]!;
      const room = restrictedRoom(state, it.group, allowed, few);
      if (room < it.count) return { ok: false, failure: { kind: 'insufficient', group: it.group, placed: room, count: it.count } };
    }
  }
  const fitsTotalSomewhere = fitsAt(total, maxIdle, 0);

  // Rule 1: one node for everything, the most idle that can. The tree skips every subtree without
  // room for the total, so even a walk that finds nothing is short.
  if (fitsTotalSomewhere) {
    const n = walkTree(state, live).first(total, (n) => {
      if (allowed !== undefined && allowed[n] === 0) return false;
      for (let i = 0; i < feasible.length; i++) if (feasible[i]!.feasible[n] === 0) return false;
      return true;
    });
    if (n >= 0) return { ok: true, placement: items.map((it) => new Array<number>(it.count).fill(n)) };
  }
  if (live.length === 1 && live[0]!.count === 1) {
    return { ok: false, failure: { kind: 'insufficient', group: live[0]!.group, placed: 0, count: 1 } };
  }
  if (!state.withinFreeSum(total)) return insufficient(live, new Array<number>(live.length).fill(0));

  // Rule 2: most idle nodes first, as many remaining replicas on each as fit, in item order (PS
  // first, so workers join it). If that fails, the same walk with the largest replicas first: a PS
  // placed first can take the room a bigger worker needed, and "does not fit" should not depend on
  // that accident of order.
  const first = greedy(state, live, feasible, allowed);
  if (first.ok) return expand(items, first.nodes);
  // Only an item the walk could not place has its capacity counted exactly (see `greedy`).
  live.forEach((it, i) => {
    if (first.placed[i]! < it.count) capacities?.set(it.group.shapeKey, { epoch: state.epoch, capacity: first.capacity[i]! });
  });
  // No order can help when some item lacks room even with the job's other replicas absent.
  const retryCanHelp = live.every((it, i) => first.capacity[i]! >= it.count);
  const bySize = live.map((it, i) => ({ it, i, size: state.normalizedSize(it.group.vec) })).sort((a, b) => b.size - a.size || a.i - b.i);
  if (retryCanHelp && bySize.some((x, k) => x.i !== k)) {
    const second = greedy(
      state,
      bySize.map((x) => x.it),
      bySize.map((x) => feasible[x.i]!),
      allowed,
    );
    if (second.ok) {
      const nodes: number[][] = live.map(() => []);
      bySize.forEach((x, k) => (nodes[x.i] = second.nodes[k]!));
      return expand(items, nodes);
    }
  }
  return insufficient(live, first.placed);
}

function expand(items: readonly PlacementItem[], liveNodes: readonly (readonly number[])[]): PlacementOutcome {
  let li = 0;
  return { ok: true, placement: items.map((it) => (it.count > 0 ? liveNodes[li++]! : [])) };
}

/**
 * On failure, `capacity[i]`: how many replicas of item i the usable nodes could hold on their own
 * (before any replica of this job), summed over every node. Exact for an item the walk could not
 * place (a failed walk visits every node where one of its replicas fits); for an item it placed in
 * full, only known to be at least its count (∞ stands for that) on an unrestricted walk.
 */
type GreedyResult =
  { readonly ok: true; readonly nodes: number[][] } | { readonly ok: false; readonly placed: number[]; readonly capacity: number[] };

/** How many replicas of `vec` fit in `have[offset..]` (∞ for a replica that requests nothing). */
function fitCount(vec: Float64Array, have: Float64Array, offset: number): number {
  let count = Number.POSITIVE_INFINITY;
  for (let r = 0; r < vec.length; r++) {
    const x = vec[r]!;
    if (x <= 0) continue;
    const h = have[offset + r]!;
    // Less than one replica's worth (a quotient below 1 never rounds up to 1): none fits. Most
    // nodes of a busy cluster end here, without a division.
    if (h < x) return 0;
    count = Math.min(count, Math.floor(h / x));
  }
  return Math.max(0, count);
}

/**
 * The nodes a walk visits, most idle first: when every item has the same constraints (the usual
 * case) only the ready nodes they allow, otherwise every ready node.
 */
function walkTree(state: ClusterState, live: readonly PlacementItem[]): FitTree {
  const mask = live[0]!.group.maskId;
  return state.treeFor(live.every((it) => it.group.maskId === mask) ? mask : undefined);
}

function greedy(
  state: ClusterState,
  live: readonly PlacementItem[],
  feasible: readonly FeasibilityMask[],
  allowed: Uint8Array | undefined,
): GreedyResult {
  const R = state.R;
  const remaining = live.map((it) => it.count);
  const placedNodes: number[][] = live.map(() => []);
  let left = live.reduce((s, it) => s + it.count, 0);
  const room = scratch(1, R);
  const tree = walkTree(state, live);
  // A node where no replica still to place fits takes nothing: the tree skips such nodes (and
  // whole subtrees of them), which in a busy cluster are most of them.
  const useless = (have: Float64Array, offset: number): boolean => {
    for (let i = 0; i < live.length; i++) if (remaining[i]! > 0 && fitsAt(live[i]!.group.vec, have, offset)) return false;
    return true;
  };
  // Per item, what the visited nodes could hold of it on their own while it still had replicas to
  // place: every node where one fits is visited until then, so for an item never placed in full this
  // is its capacity on the whole cluster, counted by the walk itself.
  const standalone = live.map(() => 0);
  tree.walk(useless, (n) => {
    if (allowed !== undefined && allowed[n] === 0) return true;
    let loaded = false;
    for (let i = 0; i < live.length; i++) {
      if (feasible[i]!.feasible[n] === 0 || remaining[i] === 0) continue;
      const vec = live[i]!.group.vec;
      standalone[i]! += fitCount(vec, state.idle, n * R);
      if (!loaded) {
        for (let r = 0; r < R; r++) room[r] = state.idle[n * R + r]!;
        loaded = true;
      }
      while (remaining[i]! > 0 && fitsAt(vec, room, 0)) {
        for (let r = 0; r < R; r++) room[r]! -= vec[r]!;
        placedNodes[i]!.push(n);
        remaining[i]!--;
        left--;
      }
    }
    return left > 0;
  });
  if (left > 0) {
    const placed = live.map((it, i) => it.count - remaining[i]!);
    const capacity =
      allowed === undefined
        ? standalone.map((c, i) => (remaining[i]! > 0 ? c : Number.POSITIVE_INFINITY))
        : restrictedCapacities(state, live, allowed);
    return { ok: false, placed, capacity };
  }
  return { ok: true, nodes: placedNodes };
}

/** Per item, how many replicas the allowed nodes could hold on their own (`restrictedRoom`). */
function restrictedCapacities(state: ClusterState, live: readonly PlacementItem[], allowed: Uint8Array): number[] {
  const few = fewAllowed(allowed);
  return live.map((it) => restrictedRoom(state, it.group, allowed, few));
}

/**
 * The allowed nodes, when they are few enough that visiting each beats the shape's per-node counts
 * (a starving job's reservation: a handful of nodes, where those counts would first have to catch
 * up with every change of the pass); undefined otherwise (backfill around that reservation:
 * nearly every node).
 */
function fewAllowed(allowed: Uint8Array): number[] | undefined {
  const limit = Math.max(8, allowed.length >> 4);
  const nodes: number[] = [];
  for (let n = 0; n < allowed.length; n++) {
    if (allowed[n] === 1) {
      if (nodes.length === limit) return undefined;
      nodes.push(n);
    }
  }
  return nodes;
}

/**
 * How many replicas of the group the allowed nodes could hold on their own: counted on the allowed
 * nodes themselves when they are few, else from the shape's per-node counts.
 */
function restrictedRoom(state: ClusterState, group: CompiledGroup, allowed: Uint8Array, few: readonly number[] | undefined): number {
  let sum = 0;
  if (few !== undefined) {
    const R = state.R;
    const ok = state.masks.get(group.maskId).feasible;
    for (const n of few) if (state.ready[n] === 1 && ok[n] === 1) sum += fitCount(group.vec, state.idle, n * R);
    return sum;
  }
  const counts = shapeCapacity(state, group).counts;
  for (let n = 0; n < counts.length; n++) if (allowed[n] === 1) sum += counts[n]!;
  return sum;
}

/**
 * One shape's room per node (how many replicas fit on each on their own; ∞ for a replica that
 * requests nothing), kept up to date with the nodes changed since, so that asking again costs only
 * those. Only restricted searches over many nodes read it (placement.ts's unrestricted walks count
 * for themselves).
 */
interface ShapeCapacity {
  readonly counts: Float64Array;
  /** How much of `state.changed` is accounted for. */
  seen: number;
}

const shapeCapacitiesFor = perState<ShapeCapacity>();

/** The shape's per-node counts, caught up with every change so far. */
function shapeCapacity(state: ClusterState, group: CompiledGroup): ShapeCapacity {
  const ok = state.masks.get(group.maskId).feasible;
  const R = state.R;
  const vec = group.vec;
  const memo = shapeCapacitiesFor(state);
  let c = memo.get(group.shapeKey);
  if (c === undefined) {
    const counts = new Float64Array(state.nodes.length);
    c = { counts, seen: state.changed.length };
    memo.set(group.shapeKey, c);
    // A node without room for one replica counts 0: only the nodes the mask's search tree does
    // not rule out are counted (in a busy cluster, few).
    state.treeFor(group.maskId).forEachHolding(vec, (n) => (counts[n] = fitCount(vec, state.idle, n * R)));
  } else {
    const changed = state.changed;
    for (let k = c.seen; k < changed.length; k++) {
      const n = changed[k]!;
      c.counts[n] = state.ready[n] === 1 && ok[n] === 1 ? fitCount(vec, state.idle, n * R) : 0;
    }
    c.seen = changed.length;
  }
  return c;
}

function insufficient(live: readonly PlacementItem[], placed: readonly number[]): PlacementOutcome {
  for (let i = 0; i < live.length; i++) {
    if (placed[i]! < live[i]!.count) {
      return { ok: false, failure: { kind: 'insufficient', group: live[i]!.group, placed: placed[i]!, count: live[i]!.count } };
    }
  }
  // Unreachable when called for a failed placement; report the last item rather than throw.
  const last = live[live.length - 1]!;
  return { ok: false, failure: { kind: 'insufficient', group: last.group, placed: last.count, count: last.count } };
}

/** Applies a placement found by `findPlacement` to the state's idle resources. */
export function commitPlacement(state: ClusterState, items: readonly PlacementItem[], placement: Placement): void {
  for (let i = 0; i < items.length; i++) {
    const vec = items[i]!.group.vec;
    const nodes = placement[i] ?? [];
    for (let k = 0; k < nodes.length; k++) state.adjust(nodes[k]!, vec, -1);
  }
}
