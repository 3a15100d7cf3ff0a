// Scale-In (paper Algorithm 2): make room for the waiting job j by removing workers of running jobs.
//
//   victims: running jobs ranked strictly below j (lower weight, or equal weight and later t_j —
//            the paper's line 5 exclusion), lowest rank first; never a job of a higher class.
//   per victim: at most l_dw = current − min workers (never below its minimum); PS and the other
//            fixed replicas are never candidates; its nodes without its PS first (removing a
//            worker that shares the PS's node is the last resort: co-located workers are the
//            cheapest to keep); on each node the highest worker indices first (§5.6), so indices
//            stay dense from 0.
//   after each removal: if j's minimum configuration now has a placement (§4.1 rule, §5.3), done.
// If no sequence of removals makes room, nothing is removed (the trial is undone).
//
// Two deviations from the literal pseudocode, both §5 decisions: the test is a full placement,
// not "this node's idle ≥ j's minimum"; and it is also made after the very last allowed removal
// (the pseudocode only tests before a removal, so its final removal could never succeed).
//
// `ours` options: workers younger than the cool-down are skipped unless j is of a higher class or
// starving; nodes j can use are emptied before nodes it cannot; after success, removed workers
// that j's placement turned out not to need are put back.

import type { ClusterState } from './cluster-state.ts';
import { removeWorkers, type CompiledJob, type LiveReplica, type RunningJob } from './job-model.ts';
import { commitPlacement, findPlacement, minimumItems } from './placement.ts';
import type { Placement, PlacementItem } from './placement.ts';
import type { Resources } from '../types.ts';

export interface ScaleInOptions {
  /** Cool-down (ms) protecting young workers from same-class preemption; undefined: none. */
  readonly cooldownMs: number | undefined;
  readonly usableNodesFirst: boolean;
  readonly pruneNeedless: boolean;
  /**
   * Whether the victim keeps its worker number `workers` against j (`qoeKeepTargetSize`): then it
   * keeps it and every worker below it. Undefined: none is kept.
   */
  readonly keepsWorker?: (victim: RunningJob, workers: number) => boolean;
  /**
   * Queues with quotas: j is admitted only once its placement fits and its queue's quota takes it
   * with what the removed workers free. Undefined: no quotas.
   */
  readonly quota?: QuotaTrial;
}

/**
 * The quota side of a scale-in trial, kept up to date one worker at a time (asking with the whole
 * list of removed workers after each removal made a trial quadratic in its removals). Every worker
 * `free`d is credited back by `scaleInFor` before it returns: the caller charges the removals it
 * keeps, as without a trial.
 */
export interface QuotaTrial {
  /** Counts a removed worker's requests as freed from its victim's queue (`sign` −1: no longer freed). */
  free(victim: RunningJob, requests: Resources, sign: 1 | -1): void;
  /** Whether j's queue takes j's minimum with what is freed now. */
  admits(): boolean;
}

export interface ScaleInStats {
  /** Running jobs ranked below j with workers above their minimum. */
  readonly victimsConsidered: number;
  /** Workers that could be removed (within l_dw, not protected). */
  readonly removableWorkers: number;
  /** Workers the cool-down protected. */
  readonly protectedWorkers: number;
  /** Workers their job keeps against j by the policy's keep rules (`keepsWorker`: its performance target). */
  readonly keptByRule: number;
}

export type ScaleInResult =
  | {
      readonly ok: true;
      /** Removed workers per victim, victims in the order they were scaled in. */
      readonly removals: readonly { readonly victim: RunningJob; readonly workers: readonly LiveReplica[] }[];
      readonly items: readonly PlacementItem[];
      readonly placement: Placement;
    }
  | { readonly ok: false; readonly stats: ScaleInStats };

interface Removal {
  readonly victim: RunningJob;
  readonly worker: LiveReplica;
  readonly vec: Float64Array;
}

function wgRequests(victim: RunningJob): Resources {
  return victim.job.workers?.requests ?? {};
}

function victimNodes(state: ClusterState, victim: RunningJob, usable: (n: number) => boolean, usableFirst: boolean): number[] {
  const nodes = [...new Set(victim.workers.filter((w) => w.node >= 0).map((w) => w.node))];
  const anchored = (n: number): number => (victim.anchorNodes.has(n) ? 1 : 0);
  if (!usableFirst) {
    // The paper: nodes without the PS first, otherwise in node order.
    return nodes.sort((a, b) => anchored(a) - anchored(b) || a - b);
  }
  const notUsable = (n: number): number => (usable(n) ? 0 : 1);
  return nodes.sort((a, b) => anchored(a) - anchored(b) || notUsable(a) - notUsable(b) || state.score[b]! - state.score[a]! || a - b);
}

/**
 * Tries to admit `job` by preempting workers of `candidates` (already filtered to jobs ranked below
 * it and sorted lowest rank first). On success the state holds the removals and `job`'s
 * placement; the caller records them. On failure the state is unchanged.
 */
export function scaleInFor(
  state: ClusterState,
  job: CompiledJob,
  candidates: readonly RunningJob[],
  now: number,
  opts: ScaleInOptions,
): ScaleInResult {
  const items = minimumItems(job);
  const quota = opts.quota;
  const masks = [...new Set(items.map((it) => it.group.maskId))].map((id) => state.masks.get(id).feasible);
  const usable = (n: number): boolean => masks.some((m) => m[n] === 1);
  const log: Removal[] = [];
  let victimsConsidered = 0;
  let removable = 0;
  let protectedCount = 0;
  let keptByRule = 0;

  const isProtected = (victim: RunningJob, w: LiveReplica): boolean =>
    opts.cooldownMs !== undefined &&
    !job.starving &&
    job.priority <= victim.job.priority &&
    w.createdAt !== undefined &&
    now - w.createdAt < opts.cooldownMs;

  let placement: Placement | undefined;
  outer: for (const victim of candidates) {
    const wg = victim.job.workers;
    if (wg === undefined) continue;
    // Workers with no pod yet (grown earlier in this pass, or placed earlier and still being created)
    // are never removed, so they cannot count towards the minimum the victim keeps either (the plan
    // deletes before it creates).
    const ldw = victim.workers.length - victim.podlessIndices.size - wg.min;
    if (ldw <= 0) continue;
    victimsConsidered++;
    let count = 0;
    for (const n of victimNodes(state, victim, usable, opts.usableNodesFirst)) {
      const onNode = victim.workers.filter((w) => w.node === n).sort((a, b) => b.index - a.index);
      for (const w of onNode) {
        // A worker with no pod yet cannot be preempted: its create may be in flight.
        if (victim.podlessIndices.has(w.index)) continue;
        if (isProtected(victim, w)) {
          protectedCount++;
          continue;
        }
        if (count >= ldw) continue outer;
        if (opts.keepsWorker?.(victim, victim.workers.length - count) === true) {
          keptByRule += victim.workers.length - count - wg.min;
          continue outer;
        }
        state.adjust(n, wg.vec, 1);
        log.push({ victim, worker: w, vec: wg.vec });
        count++;
        removable++;
        quota?.free(victim, wgRequests(victim), 1);
        // Freeing a node j cannot use changes nothing j's placement looks at (but it may free quota).
        if (!usable(n) && quota === undefined) continue;
        if (quota !== undefined && !quota.admits()) continue;
        const outcome = findPlacement(state, items);
        if (outcome.ok) {
          placement = outcome.placement;
          break outer;
        }
      }
    }
  }

  if (placement === undefined) {
    for (let i = log.length - 1; i >= 0; i--) {
      const e = log[i]!;
      state.adjust(e.worker.node, e.vec, -1);
      quota?.free(e.victim, wgRequests(e.victim), -1);
    }
    return { ok: false, stats: { victimsConsidered, removableWorkers: removable, protectedWorkers: protectedCount, keptByRule } };
  }

  commitPlacement(state, items, placement);
  let kept = log;
  if (opts.pruneNeedless) {
    // Put back, latest first, every removed worker that still fits where it was: j's placement is
    // already committed, so what fits now was never needed.
    const needed: Removal[] = [];
    // Under quotas a worker goes back only if j's queue still takes j without it.
    const quotaKeeps = (e: Removal): boolean => {
      if (quota === undefined) return true;
      quota.free(e.victim, wgRequests(e.victim), -1);
      const ok = quota.admits();
      if (!ok) quota.free(e.victim, wgRequests(e.victim), 1);
      return ok;
    };
    for (let i = log.length - 1; i >= 0; i--) {
      const e = log[i]!;
      if (state.fits(e.worker.node, e.vec) && quotaKeeps(e)) state.adjust(e.worker.node, e.vec, -1);
      else needed.push(e);
    }
    kept = needed.reverse();
  }
  // The caller charges what is kept.
  if (quota !== undefined) for (const e of kept) quota.free(e.victim, wgRequests(e.victim), -1);

  const byVictim = new Map<RunningJob, LiveReplica[]>();
  for (const e of kept) {
    let list = byVictim.get(e.victim);
    if (list === undefined) {
      list = [];
      byVictim.set(e.victim, list);
    }
    list.push(e.worker);
  }
  const removals = [...byVictim].map(([victim, workers]) => {
    removeWorkers(victim, workers);
    return { victim, workers };
  });
  return { ok: true, removals, items, placement };
}
