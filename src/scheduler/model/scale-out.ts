// Scale-Out (paper Algorithm 3): grow running jobs into idle capacity.
//
//   jobs: running jobs below their maximum, highest rank first (the heaviest grows first);
//   per job: at most l_iw = max − current workers;
//   nodes: faithful KOD2 walks every node in a fixed (name) order; on each node it adds workers
//          while one more fits, so a job's new workers land on as few nodes as possible.
//
// `ours` options: nodes hosting the job's PS first (workers there avoid cross-node gRPC); then
// either the most idle nodes or, packing, the fullest nodes that still have room (best fit: the
// crumbs left by earlier placements go to growth, the emptiest nodes stay whole for the next
// admission, which needs a whole minimum configuration, and a job's new workers land on nodes
// that are already busy rather than spreading it over the nodes that are not); stop at the knee of
// a declared scaling curve; do not regrow, in the same pass, a job that was just scaled in
// (hysteresis: it would only trade nodes and churn pods).
//
// New workers take the lowest free indices (§5.6), never an index removed in this same pass (its
// pod and service are still being deleted).

import type { ClusterState } from './cluster-state.ts';
import { addWorkers, type LiveReplica, type RunningJob } from './job-model.ts';

export interface ScaleOutOptions {
  readonly psNodesFirst: boolean;
  /**
   * After the PS's nodes (if first), the fullest nodes with room first (best fit) instead of the
   * most idle (`psNodesFirst`) or name order (neither).
   */
  readonly packNodes: boolean;
  /** Minimum marginal gain (fraction of one-worker throughput) per added worker; undefined: no knee. */
  readonly kneeMinMarginalGain: number | undefined;
  readonly skipJobsScaledInThisPass: boolean;
  /** Nodes no worker may be added to (reserved for a starving job), if any. */
  readonly reserved?: Uint8Array;
  /** A further per-job cap on the worker count (given the knee-limited one), if any. */
  readonly limitFor?: (job: RunningJob, limit: number) => number;
}

/**
 * The largest worker count scale-out may reach. With a scaling curve (element i = throughput with
 * i + 1 workers), worker k + 1 is added only if curve[k] − curve[k − 1] ≥ gain × curve[0]; counts
 * beyond the curve are not limited by it. Never below the minimum.
 */
export function kneeLimit(curve: readonly number[] | undefined, min: number, max: number, gain: number | undefined): number {
  if (gain === undefined || curve === undefined || curve.length === 0) return max;
  const base = curve[0]!;
  if (!(base > 0)) return max;
  for (let k = Math.max(1, min); k < max; k++) {
    if (k >= curve.length) return max;
    if (curve[k]! - curve[k - 1]! < gain * base) return Math.max(min, k);
  }
  return max;
}

/** The worker count scale-out may take `job` to with `opts` (the knee, then the caller's cap). */
export function scaleOutLimit(job: RunningJob, opts: ScaleOutOptions): number {
  const wg = job.job.workers;
  if (wg === undefined) return job.workers.length;
  const knee = kneeLimit(wg.scalingCurve, wg.min, wg.max, opts.kneeMinMarginalGain);
  return opts.limitFor === undefined ? knee : Math.min(knee, opts.limitFor(job, knee));
}

const NO_NODES: ReadonlySet<number> = new Set();

/** The last position in `order` (scores descending) whose node scores at least `size`; −1 if none. */
function lastScoring(order: Int32Array, score: Float64Array, size: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (score[order[mid]!]! >= size) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Runs scale-out over `jobs` (highest rank first), changing the state and each job's workers, and
 * reports every job's new workers through `onGrow` in that order.
 */
export function scaleOut(
  state: ClusterState,
  jobs: readonly RunningJob[],
  now: number,
  opts: ScaleOutOptions,
  onGrow: (job: RunningJob, added: readonly LiveReplica[]) => void,
): void {
  const N = state.nodes.length;
  // Shapes that found no node with room: idle only shrinks during scale-out, so they never will.
  const noRoom = new Set<string>();
  for (const job of jobs) {
    const wg = job.job.workers;
    if (wg === undefined) continue;
    if (opts.skipJobsScaledInThisPass && job.scaledInThisPass) continue;
    const liw = scaleOutLimit(job, opts) - job.workers.length;
    if (liw <= 0) continue;
    if (noRoom.has(wg.shapeKey) || !state.fitsSomewhereBound(wg.vec)) {
      noRoom.add(wg.shapeKey);
      continue;
    }
    const feasible = state.masks.get(wg.maskId).feasible;
    const placedOn: number[] = [];
    const fill = (n: number): boolean => {
      if (opts.reserved?.[n] === 1) return false;
      let any = false;
      while (placedOn.length < liw && state.fits(n, wg.vec)) {
        state.adjust(n, wg.vec, -1);
        placedOn.push(n);
        any = true;
      }
      return any;
    };
    if (opts.psNodesFirst) {
      const anchors = [...job.anchorNodes].sort((a, b) => state.score[b]! - state.score[a]! || a - b);
      for (const n of anchors) {
        if (placedOn.length >= liw) break;
        if (feasible[n] === 1 && state.ready[n] === 1) fill(n);
      }
    }
    const skip = opts.psNodesFirst ? job.anchorNodes : NO_NODES;
    if (placedOn.length >= liw) {
      // Done on the PS's nodes.
    } else if (opts.packNodes) {
      // Least idle first: walk the most-idle-first order backwards, from the last node whose score
      // reaches one worker's (a node that can hold the worker scores at least that much, unless
      // some resource the worker does not request is over-committed there: such a node is
      // skipped). Filling a node only moves it further right, past the walk, so the nodes still
      // ahead of the walk keep their positions.
      const order = state.orderFor(wg.maskId);
      for (let k = lastScoring(order, state.score, state.normalizedSize(wg.vec)); k >= 0 && placedOn.length < liw; k--) {
        const n = order[k]!;
        if (!skip.has(n)) fill(n);
      }
    } else if (opts.psNodesFirst) {
      // Then the most idle nodes. Filling a node lowers its score and moves it right in the
      // order, shifting the nodes after it one step left, so stay at the same position
      // until it holds a node that takes nothing; a node met twice no longer has room.
      const order = state.orderFor(wg.maskId);
      for (let k = 0; k < order.length && placedOn.length < liw;) {
        const n = order[k]!;
        if (!skip.has(n) && fill(n) && order[k] !== n) continue;
        k++;
      }
    } else {
      for (let n = 0; n < N && placedOn.length < liw; n++) {
        if (feasible[n] === 1 && state.ready[n] === 1) fill(n);
      }
    }
    if (placedOn.length === 0) {
      noRoom.add(wg.shapeKey);
      continue;
    }
    onGrow(job, addWorkers(job, wg.type, placedOn, now));
  }
}
