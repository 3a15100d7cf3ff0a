// Relocation of converged jobs' remote workers (`relocateConverged`, ours; SpeCon Algorithm 4 as
// shared docs related-papers §6 F5 maps it: "only move workers that are already remote from the
// PS"). When Scale-In cannot make room for the head of the queue, a Converged job ranked below it
// whose workers sit on nodes other than its PS's has those workers moved onto its PS's nodes, where
// they fit, if that lets the head's minimum configuration fit. The moved job keeps its worker count
// (it is not preempted: it trades remote workers for local ones, which its PS reaches without the
// network), and the head gets the room they leave. Kubernetes has no live migration: a move is a
// worker pod deleted and one created on the PS's node, which an asynchronous-PS job absorbs
// without a checkpoint (workers are stateless; the PS holds the parameters).
//
// Guard rails: only the jobs the caller passes (Converged, ranked below the head, of its class or
// lower), and only elastic ones (a fixed-size job's workers keep their names and places); workers
// younger than the cool-down and workers with no pod yet stay; the PS never moves; lowest rank
// first. Once the head fits, every move it did not need is undone (latest first, as suspension puts
// back its needless victims); when it does not fit, the state is unchanged.

import type { ClusterState } from './cluster-state.ts';
import type { CompiledJob, LiveReplica, RunningJob } from './job-model.ts';
import { commitPlacement, findPlacement, minimumItems } from './placement.ts';
import type { Placement, PlacementItem } from './placement.ts';

export interface Relocation {
  readonly job: RunningJob;
  /** The remote workers that leave their nodes. */
  readonly removed: readonly LiveReplica[];
  /** Where their replacements go: the job's PS's nodes, one entry per worker. */
  readonly to: readonly number[];
}

export type RelocateResult =
  | { readonly ok: true; readonly moves: readonly Relocation[]; readonly items: readonly PlacementItem[]; readonly placement: Placement }
  | { readonly ok: false };

/** The job's workers on nodes other than its PS's that may move (a pod, held at least `minHeldMs`). */
export function remoteWorkers(r: RunningJob, now: number, minHeldMs: number | undefined): LiveReplica[] {
  return r.workers.filter(
    (w) =>
      w.node >= 0 &&
      !r.anchorNodes.has(w.node) &&
      !r.podlessIndices.has(w.index) &&
      !(minHeldMs !== undefined && w.createdAt !== undefined && now - w.createdAt < minHeldMs),
  );
}

/**
 * Tries to admit `head` (its minimum configuration) by moving remote workers of `candidates`
 * (already filtered, lowest rank first) onto their PS's nodes. On success the state holds the moves
 * and the head's placement, and the candidates' worker lists are not touched (the caller applies
 * the moves). On failure the state is unchanged.
 */
export function relocateFor(
  state: ClusterState,
  head: CompiledJob,
  candidates: readonly RunningJob[],
  now: number,
  minHeldMs: number | undefined,
): RelocateResult {
  const items = minimumItems(head);
  const log: Relocation[] = [];
  let placement: Placement | undefined;
  for (const r of candidates) {
    const wg = r.job.workers;
    if (wg === undefined || wg.min === wg.max || r.admittedThisPass || r.scaledInThisPass) continue;
    const remote = remoteWorkers(r, now, minHeldMs);
    if (remote.length === 0) continue;
    const anchors = [...r.anchorNodes]
      .filter((n) => state.ready[n] === 1 && state.masks.get(wg.maskId).feasible[n] === 1)
      .sort((a, b) => a - b);
    const removed: LiveReplica[] = [];
    const to: number[] = [];
    // Each remote worker moves only if a PS node still has room for it (taken before it leaves, so
    // a worker never "moves" into the room it frees itself).
    for (const w of remote) {
      const n = anchors.find((a) => state.fits(a, wg.vec));
      if (n === undefined) break;
      state.adjust(n, wg.vec, -1);
      state.adjust(w.node, wg.vec, 1);
      removed.push(w);
      to.push(n);
    }
    if (removed.length === 0) continue;
    log.push({ job: r, removed, to });
    const outcome = findPlacement(state, items);
    if (outcome.ok) {
      placement = outcome.placement;
      break;
    }
  }
  if (placement === undefined) {
    for (const m of log) {
      const vec = m.job.job.workers!.vec;
      for (let i = 0; i < m.removed.length; i++) {
        state.adjust(m.removed[i]!.node, vec, -1);
        state.adjust(m.to[i]!, vec, 1);
      }
    }
    return { ok: false };
  }
  commitPlacement(state, items, placement);
  // Put back, latest first, every moved worker whose old node still has room for it: the head's
  // placement did not need that room.
  const moves: Relocation[] = [];
  for (let i = log.length - 1; i >= 0; i--) {
    const m = log[i]!;
    const vec = m.job.job.workers!.vec;
    const removed: LiveReplica[] = [];
    const to: number[] = [];
    for (let k = m.removed.length - 1; k >= 0; k--) {
      const from = m.removed[k]!.node;
      if (state.fits(from, vec)) {
        state.adjust(from, vec, -1);
        state.adjust(m.to[k]!, vec, 1);
        continue;
      }
      removed.unshift(m.removed[k]!);
      to.unshift(m.to[k]!);
    }
    if (removed.length > 0) moves.unshift({ job: m.job, removed, to });
  }
  return { ok: true, moves, items, placement };
}
