// Suspension (`ours`, `suspendDemoted`): when Scale-In cannot make room for the head of the queue,
// whole demoted jobs ranked below it give back every replica and return to the queue, lowest rank
// first, until the head's minimum configuration fits. This is Tiresias's preemption (a job that
// has held much service yields entirely to new ones), on top of KOD2's, which never goes below a
// job's minimum. The job resumes from its own checkpoint when it is admitted again (as when Kueue
// suspends a TFJob); its submission time and attained service stay, so it stays demoted.
//
// Guard rails: only jobs the caller passes (demoted, ranked below the head, of its class or lower);
// a job none of whose replicas has held its node for `minHeldMs` yet is skipped (it has just been
// admitted or resumed: suspending it again would only pay its start-up twice); after success,
// victims whose every replica still fits where it was are put back (not needed after all).

import type { ClusterState } from './cluster-state.ts';
import { groupVec, type CompiledJob, type RunningJob } from './job-model.ts';
import { commitPlacement, findPlacement, minimumItems } from './placement.ts';
import type { Placement, PlacementItem } from './placement.ts';

export type SuspendResult =
  | {
      readonly ok: true;
      /** Victims in the order they were suspended. */
      readonly victims: readonly RunningJob[];
      readonly items: readonly PlacementItem[];
      readonly placement: Placement;
    }
  | { readonly ok: false; readonly considered: number };

interface Freed {
  readonly node: number;
  readonly vec: Float64Array;
}

/** Requests of each bound replica of a running job. */
export function boundReplicas(victim: RunningJob): Freed[] {
  const out: Freed[] = [];
  for (const r of [...victim.fixedReplicas, ...victim.workers]) {
    const vec = groupVec(victim.job, r.type);
    if (r.node >= 0 && vec !== undefined) out.push({ node: r.node, vec });
  }
  return out;
}

function heldLongEnough(victim: RunningJob, now: number, minHeldMs: number): boolean {
  // A job changed earlier in this pass has pods the plan still creates or deletes; one with replicas
  // placed but not created yet (pods possibly being created) cannot give them back either.
  if (victim.admittedThisPass || victim.scaledInThisPass || victim.podlessIndices.size > 0) return false;
  if (victim.fixedReplicas.some((r) => r.pending === true)) return false;
  const replicas = [...victim.fixedReplicas, ...victim.workers];
  // The job's start-up is paid by its fixed replicas (the PS): it runs only once they are up.
  const anchor = victim.fixedReplicas.length > 0 ? victim.fixedReplicas : replicas;
  return anchor.every((r) => r.createdAt === undefined || now - r.createdAt >= minHeldMs);
}

/**
 * Tries to admit `head` (its minimum configuration, or `items`) by suspending `candidates` (already
 * filtered and sorted lowest rank first).
 * On success the state holds the freed replicas and `head`'s placement, and the victims' lists
 * are not touched (the caller removes them from the pass). On failure the state is unchanged.
 */
export function suspendFor(
  state: ClusterState,
  head: CompiledJob,
  candidates: readonly RunningJob[],
  now: number,
  minHeldMs: number,
  items: readonly PlacementItem[] = minimumItems(head),
): SuspendResult {
  const log: { victim: RunningJob; freed: Freed[] }[] = [];
  let placement: Placement | undefined;
  let considered = 0;
  for (const victim of candidates) {
    if (!heldLongEnough(victim, now, minHeldMs)) continue;
    considered++;
    const freed = boundReplicas(victim);
    for (const f of freed) state.adjust(f.node, f.vec, 1);
    log.push({ victim, freed });
    const outcome = findPlacement(state, items);
    if (outcome.ok) {
      placement = outcome.placement;
      break;
    }
  }
  if (placement === undefined) {
    for (const { freed } of log) for (const f of freed) state.adjust(f.node, f.vec, -1);
    return { ok: false, considered };
  }
  commitPlacement(state, items, placement);
  // Put back, latest first, every victim that still fits entirely where it was.
  const needed: RunningJob[] = [];
  for (let i = log.length - 1; i >= 0; i--) {
    const { victim, freed } = log[i]!;
    const placed: Freed[] = [];
    for (const f of freed) {
      if (!state.fits(f.node, f.vec)) break;
      state.adjust(f.node, f.vec, -1);
      placed.push(f);
    }
    if (placed.length === freed.length) continue;
    for (const f of placed) state.adjust(f.node, f.vec, 1);
    needed.push(victim);
  }
  return { ok: true, victims: needed.reverse(), items, placement };
}
