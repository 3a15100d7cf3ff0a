// Consolidation of spread elastic jobs (`consolidateSpreadJobs`, opt-in; a placement rule of our own,
// the counterpart of `spreadOnlyForGain`): growth may spread a job over more nodes than its size
// needs when that is the room there is (Philly: yolov3 grown to 3 + 1 nodes runs 0.64 steps/s, on 4
// of one node 1.32), and a declared scaling curve describes the job on the fewest nodes its workers
// fit. Once room appears on the nodes it already uses, its workers on the others move there, so
// that it runs where its curve holds again. A move is a worker pod deleted and one created (workers
// of a PS job are stateless), as in `relocateConverged`.
//
// Reads only what the operator sees: the job's declared curve (that it has one: the curve is what
// says the fewest-node placement is the job's rate), its workers' placements and ages, and the
// nodes' room. Never the trace's duration or remaining work. Guard rails: elastic jobs with a curve
// only; no worker without a pod; no worker of the job younger than `minHeldMs` (a job is moved at
// most once per cool-down: the moved workers are new); the PS never moves; only onto nodes the job
// already uses, ready, feasible and not reserved; the job ends on exactly the fewest nodes its
// worker count needs, with the fewest moves (among equals, the nodes holding most of its workers,
// then the lowest). The nodes of its PS are kept first; only when no such placement has room may
// workers leave a PS node (measured: on kod2-paper's asynchronous jobs, where a worker off its PS's
// node is slower, this costs up to 0.9 % mean JCT; on Philly's synchronous ones it is what frees
// most jobs, docs/simulation-results.md §1c′).

import type { ClusterState } from './cluster-state.ts';
import type { LiveReplica, RunningJob } from './job-model.ts';
import { replicasPerNode } from './spread-for-gain.ts';

export interface Consolidation {
  readonly job: RunningJob;
  /** The workers that leave their nodes. */
  readonly removed: readonly LiveReplica[];
  /** Where their replacements go (nodes the job already uses), one entry per worker. */
  readonly to: readonly number[];
}

/** Subsets of node sets tried per job at most; beyond, only the most-used nodes are tried. */
const MAX_SUBSETS = 256;

/** Whether `r` may move now: elastic, with a curve, every worker with a pod and past `minHeldMs`. */
function movable(r: RunningJob, now: number, minHeldMs: number): boolean {
  const wg = r.job.workers;
  if (wg === undefined || wg.min === wg.max || wg.scalingCurve === undefined || wg.scalingCurve.length === 0) return false;
  if (r.admittedThisPass || r.scaledInThisPass || r.podlessIndices.size > 0) return false;
  return r.workers.every((w) => w.node >= 0 && w.pending !== true && (w.createdAt === undefined || now - w.createdAt >= minHeldMs));
}

/** The k-element subsets of `items` in lexicographic order, at most `limit` of them. */
function subsets(items: readonly number[], k: number, limit: number): number[][] {
  const out: number[][] = [];
  const pick: number[] = [];
  const walk = (from: number): void => {
    if (out.length >= limit) return;
    if (pick.length === k) {
      out.push([...pick]);
      return;
    }
    for (let i = from; i <= items.length - (k - pick.length); i++) {
      pick.push(items[i]!);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}

/** The fewest nodes `r`'s workers need, and how many of them each node holds; undefined: no worker fits a node. */
function spreadOf(state: ClusterState, r: RunningJob): { need: number; counts: Map<number, number> } | undefined {
  const wg = r.job.workers!;
  const perNode = replicasPerNode(state, wg.vec, state.masks.get(wg.maskId).feasible);
  if (perNode <= 0) return undefined;
  const counts = new Map<number, number>();
  for (const w of r.workers) counts.set(w.node, (counts.get(w.node) ?? 0) + 1);
  return { need: Math.ceil(r.workers.length / perNode), counts };
}

/** Whether `r` may move now and its workers use more nodes than their count needs. */
export function isSpread(state: ClusterState, r: RunningJob, now: number, minHeldMs: number): boolean {
  if (!movable(r, now, minHeldMs)) return false;
  const s = spreadOf(state, r);
  return s !== undefined && s.counts.size > s.need;
}

interface Target {
  /** Workers that stay on their node. */
  readonly stay: readonly LiveReplica[];
  readonly removed: readonly LiveReplica[];
  readonly to: readonly number[];
}

/**
 * Where `r`'s workers go: the fewest nodes they need, all among those they use, with the fewest
 * moves. First with every node of the PS that holds workers kept (no worker leaves its PS: an
 * asynchronous job's remote workers are the slow ones); only if no such set has room, any of its
 * nodes. `alsoStaying`: the job's workers are off the state, so those that stay need room too.
 * The state is left unchanged.
 */
function targetOf(
  state: ClusterState,
  r: RunningJob,
  allowed: ((n: number) => boolean) | undefined,
  alsoStaying: boolean,
): Target | undefined {
  const wg = r.job.workers!;
  const feasible = state.masks.get(wg.maskId).feasible;
  const s = spreadOf(state, r);
  if (s === undefined) return undefined;
  const usable = (n: number): boolean => state.ready[n] === 1 && feasible[n] === 1 && (allowed === undefined || allowed(n));
  const psNodes = [...s.counts.keys()].filter((n) => r.anchorNodes.has(n)).sort((a, b) => a - b);
  const nearPs = psNodes.length <= s.need && psNodes.every(usable) ? fewestMoves(state, r, s, psNodes, usable, alsoStaying) : undefined;
  return nearPs ?? fewestMoves(state, r, s, [], usable, alsoStaying);
}

function fewestMoves(
  state: ClusterState,
  r: RunningJob,
  s: { need: number; counts: ReadonlyMap<number, number> },
  kept: readonly number[],
  usable: (n: number) => boolean,
  alsoStaying: boolean,
): Target | undefined {
  const vec = r.job.workers!.vec;
  const inKept = new Set(kept);
  const others = [...s.counts.keys()]
    .filter((n) => !inKept.has(n) && usable(n))
    .sort((a, b) => s.counts.get(b)! - s.counts.get(a)! || a - b);
  let best: Target | undefined;
  for (const extra of subsets(others, s.need - kept.length, MAX_SUBSETS)) {
    const target = [...kept, ...extra];
    const onTarget = new Set(target);
    const stay = r.workers.filter((w) => onTarget.has(w.node));
    const leaving = r.workers.filter((w) => !onTarget.has(w.node));
    if (best !== undefined && leaving.length >= best.removed.length) continue;
    // Room is taken as each worker is assigned (staying ones first, then as ordered) and given back after.
    const staying = alsoStaying ? stay.map((w) => w.node) : [];
    if (!takeAll(state, vec, staying)) continue;
    const to: number[] = [];
    for (let k = 0; k < leaving.length; k++) {
      const n = target.find((t) => state.fits(t, vec));
      if (n === undefined) break;
      state.adjust(n, vec, -1);
      to.push(n);
    }
    adjustAll(state, vec, [...staying, ...to], 1);
    if (to.length === leaving.length) best = { stay, removed: leaving, to };
  }
  return best;
}

/**
 * The moves that put `r`'s workers on the fewest nodes its worker count needs, all of them nodes it
 * already uses; undefined when it is not spread past them, may not move now, or the room is not
 * there. `allowed` (undefined: every node) limits the nodes workers may move onto. The state is
 * left unchanged.
 */
export function consolidationFor(
  state: ClusterState,
  r: RunningJob,
  now: number,
  minHeldMs: number,
  allowed?: (node: number) => boolean,
): Consolidation | undefined {
  if (!isSpread(state, r, now, minHeldMs)) return undefined;
  const t = targetOf(state, r, allowed, false);
  return t === undefined ? undefined : { job: r, removed: t.removed, to: t.to };
}

/** Takes room for one `vec` on each of `nodes` (sign −1) or gives it back (+1). */
function adjustAll(state: ClusterState, vec: Float64Array, nodes: readonly number[], sign: 1 | -1): void {
  for (const n of nodes) state.adjust(n, vec, sign);
}

/** Takes room for one `vec` on each of `nodes` in turn; false (nothing taken) if one lacks it. */
function takeAll(state: ClusterState, vec: Float64Array, nodes: readonly number[]): boolean {
  const taken: number[] = [];
  for (const n of nodes) {
    if (!state.fits(n, vec)) {
      adjustAll(state, vec, taken, 1);
      return false;
    }
    state.adjust(n, vec, -1);
    taken.push(n);
  }
  return true;
}

/**
 * Consolidates `jobs` (each `isSpread`, none of which `consolidationFor` could move alone) together:
 * all their workers are taken off the state, each job in the order given is placed on the fewest of
 * its own nodes where room allows (two jobs whose remote workers sit crosswise on each other's nodes
 * swap them), and a job that is not goes back where it was. If one cannot go back (another took its
 * room), or none moves, nothing moves (undefined, the state unchanged). On success the state holds
 * the moves.
 */
export function consolidateTogether(
  state: ClusterState,
  jobs: readonly RunningJob[],
  allowed?: (node: number) => boolean,
): Consolidation[] | undefined {
  const vec = (r: RunningJob): Float64Array => r.job.workers!.vec;
  const nodesOf = (r: RunningJob): number[] => r.workers.map((w) => w.node);
  for (const r of jobs) adjustAll(state, vec(r), nodesOf(r), 1);
  const placed: { job: RunningJob; target: Target }[] = [];
  const back: RunningJob[] = [];
  for (const r of jobs) {
    const target = targetOf(state, r, allowed, true);
    if (target === undefined) back.push(r);
    else {
      adjustAll(state, vec(r), [...target.stay.map((w) => w.node), ...target.to], -1);
      placed.push({ job: r, target });
    }
  }
  const returned: RunningJob[] = [];
  for (const r of back) {
    if (!takeAll(state, vec(r), nodesOf(r))) break;
    returned.push(r);
  }
  if (returned.length === back.length && placed.length > 0) {
    return placed.map(({ job, target }) => ({ job, removed: target.removed, to: target.to }));
  }
  for (const r of returned) adjustAll(state, vec(r), nodesOf(r), 1);
  for (const { job, target } of placed) adjustAll(state, vec(job), [...target.stay.map((w) => w.node), ...target.to], 1);
  for (const r of jobs) adjustAll(state, vec(r), nodesOf(r), -1);
  return undefined;
}
