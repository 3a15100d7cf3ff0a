// `spreadOnlyForGain` (opt-in; a placement rule of our own): a declared scaling curve is a job's rate
// on the fewest nodes its workers fit, and a synchronous job spread further can run slower than
// before it grew (Philly: yolov3 on 3 + 1 nodes 0.64 steps/s, on 3 of one node 0.89), so growth past
// its fewest nodes keeps the further nodes only if the curve, less a spread risk, says it gains.

import type { ClusterState } from './cluster-state.ts';

/** How many replicas of `vec` an empty node holds at most, over the ready nodes `feasible` allows; 0: none. */
export function replicasPerNode(state: ClusterState, vec: Float64Array, feasible: Uint8Array): number {
  let best = 0;
  for (let n = 0; n < state.nodes.length; n++) {
    if (feasible[n] !== 1 || state.ready[n] !== 1) continue;
    let fit = Number.POSITIVE_INFINITY;
    for (let r = 0; r < state.R; r++) {
      const need = vec[r]!;
      if (need > 0) fit = Math.min(fit, Math.floor(state.alloc[n * state.R + r]! / need + 1e-9));
    }
    if (Number.isFinite(fit)) best = Math.max(best, fit);
  }
  return best;
}

/**
 * Share of the declared rate a spread beyond the fewest nodes is assumed to cost: a synchronous job's
 * step waits for its slowest link (on the Philly cluster model, 4 workers on 3 + 1 nodes against 4
 * on one node: yolov3 −43 %, bert −14 %, deepspeech2 −3 %, imagenet +6 %).
 */
export const SPREAD_RISK = 0.25;

/** The rate `curve` (element i = rate with i + 1 workers) gives `workers`; beyond it, the last. */
const rateAt = (curve: readonly number[], workers: number): number => curve[Math.min(workers, curve.length) - 1] ?? 0;

/**
 * The part of `placed` (new workers' nodes, in placement order) worth adding: while the job would
 * use more nodes than max(|its worker nodes now|, ⌈workers after growth ÷ `perNode`⌉), the curve's
 * rate at its new size, less `SPREAD_RISK`, must beat the rate of the workers it would have on its
 * own nodes alone; otherwise the new node holding fewest of the new workers (the last placed among
 * equals) is dropped. Without a curve (nothing to weigh) every worker is kept.
 */
export function keptForSpreadGain(
  current: readonly number[],
  placed: readonly number[],
  perNode: number,
  curve: readonly number[] = [],
): number[] {
  if (perNode <= 0 || curve.length === 0) return [...placed];
  const own = new Set(current);
  let kept = [...placed];
  for (;;) {
    const total = current.length + kept.length;
    const nodes = new Set([...current, ...kept]);
    if (nodes.size <= Math.max(own.size, Math.ceil(total / perNode))) return kept;
    const local = current.length + kept.filter((n) => own.has(n)).length;
    if (rateAt(curve, total) * (1 - SPREAD_RISK) >= rateAt(curve, local)) return kept;
    const drop = fewestPlaced(kept, own);
    kept = kept.filter((n) => n !== drop);
  }
}

/** The node outside `own` with the fewest entries in `kept`; among equals the one placed last. */
function fewestPlaced(kept: readonly number[], own: ReadonlySet<number>): number {
  const counts = new Map<number, number>();
  for (const n of kept) if (!own.has(n)) counts.set(n, (counts.get(n) ?? 0) + 1);
  let drop = -1;
  let least = Number.POSITIVE_INFINITY;
  for (const [n, c] of counts) {
    if (c <= least) {
      least = c;
      drop = n;
    }
  }
  return drop;
}
