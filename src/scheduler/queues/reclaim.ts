// Reclaim (Kueue's reclaimWithinCohort, in workers): a queue gets the quota it lent back from the
// queues that borrow it, for a waiting job whose minimum fits its nominal quota but not what its
// cohort still has to lend (`reclaimQuota`), and for its running jobs' growth up to its nominal
// quota (`reclaimForGrowth`). Borrowed workers are the first to go:
//
//   victims: running jobs of the other queues of the cohort that hold more than their nominal
//            quota, the queue with the largest fair share first, then the job ranked lowest;
//   per victim: workers above its minimum, highest index first, never one added earlier in this
//            pass (no pod yet), and only while its queue still borrows;
//   until the ledger admits the job's minimum; if workers above minimums are not enough, whole
//   suspendable jobs of those queues go back to the waiting queue (Plan.suspend; they resume from
//   their checkpoints), lowest rank first. If even that is not enough, nothing changes.
//
// For growth, one borrowed worker makes room for one worker of the growing job on the same node, or
// is left alone: quota taken back and then left idle would only be borrowed again by the next pass.
// A queue within its nominal quota takes its quota back; a queue that borrows too takes a borrowed
// worker of a queue whose fair share stays at least its own after the move (dominant-resource share
// by weight, quota.ts): borrowed capacity ends up shared by weight, whoever borrowed first, and a
// move that would only swap the two shares' order is never made (no ping-pong).
//
// Priority classes and ranks do not protect borrowed workers: the quota was lent, not given (as in
// Kueue, where reclaim ignores priority by default). A job's minimum is never taken.

import type { ClusterState } from '../model/cluster-state.ts';
import { removeWorkers, type CompiledJob, type LiveReplica, type RunningJob } from '../model/job-model.ts';
import { heldBy, times, type QuotaLedger } from './quota.ts';
import { boundReplicas } from '../model/suspend.ts';
import type { Resources } from '../types.ts';
import { compareRank } from '../ranking/weight.ts';

export interface Reclaimed {
  readonly victim: RunningJob;
  readonly workers: readonly LiveReplica[];
}

export interface ReclaimResult {
  readonly removals: readonly Reclaimed[];
  /** Whole jobs to suspend (the caller takes them out of the pass). */
  readonly suspended: readonly RunningJob[];
}

/** Running jobs of the borrowing queues of `queue`'s cohort, largest queue share first, then lowest rank. */
function borrowersOf(ledger: QuotaLedger, queue: string, running: readonly RunningJob[], except: string): RunningJob[] {
  const peers = new Set(ledger.cohortPeers(queue).filter((q) => ledger.isBorrowing(q)));
  if (peers.size === 0) return [];
  const shareOf = new Map([...peers].map((q) => [q, ledger.share(q)] as const));
  return running
    .filter((r) => r.job.key !== except && r.job.workers !== undefined && peers.has(r.job.state.spec.queue ?? ''))
    .sort((a, b) => shareOf.get(b.job.state.spec.queue!)! - shareOf.get(a.job.state.spec.queue!)! || compareRank(b.job, a.job));
}

/** Whether removing one replica of `requests` from `queue` still leaves it at or above nominal where it borrows. */
function stillBorrowsFor(ledger: QuotaLedger, queue: string, requests: Resources): boolean {
  const spec = ledger.spec(queue);
  if (spec === undefined) return false;
  const used = ledger.used(queue);
  return Object.keys(spec.nominalQuota).some((r) => (requests[r] ?? 0) > 0 && (used[r] ?? 0) > (spec.nominalQuota[r] ?? 0) + 1e-9);
}

/**
 * Frees quota for `job` (charged to `queue`) from borrowing queues of its cohort, changing the
 * state, the ledger and the victims' workers. Returns the removals, or undefined (nothing changed)
 * when the borrowed workers are not enough.
 */
export function reclaimQuota(
  state: ClusterState,
  ledger: QuotaLedger,
  queue: string,
  job: CompiledJob,
  demand: Resources,
  running: readonly RunningJob[],
): ReclaimResult | undefined {
  const victims = borrowersOf(ledger, queue, running, job.key);
  if (victims.length === 0) return undefined;
  const suspended: RunningJob[] = [];
  const log: { victim: RunningJob; worker: LiveReplica }[] = [];
  let done = false;
  outer: for (const victim of victims) {
    const wg = victim.job.workers!;
    const q = victim.job.state.spec.queue!;
    const removable = victim.workers.filter((w) => !victim.podlessIndices.has(w.index)).sort((a, b) => b.index - a.index);
    let left = victim.workers.length - victim.podlessIndices.size - wg.min;
    for (const w of removable) {
      if (left <= 0 || !stillBorrowsFor(ledger, q, wg.requests)) break;
      ledger.charge(q, wg.requests, -1);
      if (w.node >= 0) state.adjust(w.node, wg.vec, 1);
      log.push({ victim, worker: w });
      left--;
      if (ledger.check(queue, demand) === undefined) {
        done = true;
        break outer;
      }
    }
  }
  // Minimums are not enough: whole suspendable jobs of borrowing queues, lowest rank first.
  if (!done) {
    for (const victim of [...victims].sort((a, b) => compareRank(b.job, a.job))) {
      const q = victim.job.state.spec.queue!;
      if (victim.job.state.spec.suspendable !== true || victim.admittedThisPass || !ledger.isBorrowing(q)) continue;
      // Its workers already taken above are back in the ledger and the state first.
      for (const e of log.filter((x) => x.victim === victim)) {
        ledger.charge(q, victim.job.workers!.requests, 1);
        if (e.worker.node >= 0) state.adjust(e.worker.node, victim.job.workers!.vec, -1);
      }
      log.splice(0, log.length, ...log.filter((x) => x.victim !== victim));
      ledger.charge(q, heldBy(victim), -1);
      for (const f of boundReplicas(victim)) state.adjust(f.node, f.vec, 1);
      suspended.push(victim);
      if (ledger.check(queue, demand) === undefined) {
        done = true;
        break;
      }
    }
  }
  if (!done) {
    for (const victim of suspended) {
      ledger.charge(victim.job.state.spec.queue!, heldBy(victim), 1);
      for (const f of boundReplicas(victim)) state.adjust(f.node, f.vec, -1);
    }
    for (const { victim, worker } of log) {
      const wg = victim.job.workers!;
      ledger.charge(victim.job.state.spec.queue!, wg.requests, 1);
      if (worker.node >= 0) state.adjust(worker.node, wg.vec, -1);
    }
    return undefined;
  }
  const byVictim = new Map<RunningJob, LiveReplica[]>();
  for (const { victim, worker } of log) {
    const list = byVictim.get(victim);
    if (list === undefined) byVictim.set(victim, [worker]);
    else list.push(worker);
  }
  const removals = [...byVictim].map(([victim, workers]) => {
    removeWorkers(victim, workers);
    return { victim, workers };
  });
  return { removals, suspended };
}

export interface GrowthReclaimEffects {
  /** `removed` workers of `victim` make room for `receiver` (already taken off both the state and the ledger). */
  readonly reclaimed: (victim: RunningJob, removed: readonly LiveReplica[], receiver: RunningJob) => void;
  /** `receiver` got workers on `nodes` (already placed in the state; the callee adds and charges them). */
  readonly grow: (receiver: RunningJob, nodes: readonly number[]) => void;
}

/**
 * Grows each of `receivers` (jobs of queues with quotas, lowest queue share first) towards
 * `limitFor(job)` workers with borrowed workers of other queues of the cohort: one is removed where
 * one of the receiver's workers then fits on its node, while the receiver's queue stays within its
 * nominal quota, or its fair share stays at most the lender's (module comment).
 */
export function reclaimForGrowth(
  state: ClusterState,
  ledger: QuotaLedger,
  receivers: readonly RunningJob[],
  running: readonly RunningJob[],
  limitFor: (job: RunningJob) => number,
  effects: GrowthReclaimEffects,
): void {
  for (const r of receivers) {
    const q = r.job.state.spec.queue;
    const wg = r.job.workers;
    if (q === undefined || wg === undefined) continue;
    let want = limitFor(r) - r.workers.length;
    if (want <= 0) continue;
    const feasible = state.masks.get(wg.maskId).feasible;
    const placed: number[] = [];
    for (const victim of borrowersOf(ledger, q, running, r.job.key)) {
      if (want <= 0) break;
      const vg = victim.job.workers!;
      const vq = victim.job.state.spec.queue!;
      const taken: LiveReplica[] = [];
      let left = victim.workers.length - victim.podlessIndices.size - vg.min;
      const removable = victim.workers.filter((w) => w.node >= 0 && !victim.podlessIndices.has(w.index)).sort((a, b) => b.index - a.index);
      // Its quota back, or a fairer split of what the cohort lends.
      const mayTake = (): boolean =>
        ledger.fitsNominal(q, wg.requests) || ledger.shareWith(q, wg.requests, 1) <= ledger.shareWith(vq, vg.requests, -1) + 1e-12;
      for (const w of removable) {
        if (want <= 0 || left <= 0 || !stillBorrowsFor(ledger, vq, vg.requests) || !mayTake()) break;
        const n = w.node;
        if (feasible[n] !== 1 || state.ready[n] !== 1) continue;
        state.adjust(n, vg.vec, 1);
        ledger.charge(vq, vg.requests, -1);
        if (!state.fits(n, wg.vec) || ledger.check(q, wg.requests) !== undefined) {
          state.adjust(n, vg.vec, -1);
          ledger.charge(vq, vg.requests, 1);
          continue;
        }
        state.adjust(n, wg.vec, -1);
        ledger.charge(q, wg.requests, 1);
        taken.push(w);
        placed.push(n);
        left--;
        want--;
      }
      if (taken.length === 0) continue;
      removeWorkers(victim, taken);
      effects.reclaimed(victim, taken, r);
    }
    if (placed.length > 0) {
      // The caller charges the new workers itself: take them off the ledger again first.
      ledger.charge(q, times(wg.requests, placed.length), -1);
      effects.grow(r, placed);
    }
  }
}
