// Reclaim (Kueue's reclaimWithinCohort, in workers): a waiting job whose minimum fits its queue's
// nominal quota but not what its cohort still has to lend gets that quota back from the queues that
// borrow it. Borrowed workers are the first to go:
//
//   victims: running jobs of the other queues of the cohort that hold more than their nominal
//            quota, the queue with the largest fair share first, then the job ranked lowest;
//   per victim: workers above its minimum, highest index first, never one added earlier in this
//            pass (no pod yet), and only while its queue still borrows;
//   until the ledger admits the job's minimum. If it never does, nothing is removed.
//
// Priority classes and ranks do not protect borrowed workers: the quota was lent, not given (as in
// Kueue, where reclaim ignores priority by default). A job's minimum is never taken.

import type { ClusterState } from './cluster-state.ts';
import { removeWorkers, type CompiledJob, type LiveReplica, type RunningJob } from './job-model.ts';
import type { QuotaLedger } from './quota.ts';
import type { Resources } from './types.ts';
import { compareRank } from './weight.ts';

export interface Reclaimed {
  readonly victim: RunningJob;
  readonly workers: readonly LiveReplica[];
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
): Reclaimed[] | undefined {
  const peers = new Set(ledger.cohortPeers(queue).filter((q) => ledger.isBorrowing(q)));
  if (peers.size === 0) return undefined;
  const shareOf = new Map([...peers].map((q) => [q, ledger.share(q)] as const));
  const victims = running
    .filter((r) => r.job.key !== job.key && r.job.workers !== undefined && peers.has(r.job.state.spec.queue ?? ''))
    .sort((a, b) => shareOf.get(b.job.state.spec.queue!)! - shareOf.get(a.job.state.spec.queue!)! || compareRank(b.job, a.job));
  const log: { victim: RunningJob; worker: LiveReplica }[] = [];
  let done = false;
  outer: for (const victim of victims) {
    const wg = victim.job.workers!;
    const q = victim.job.state.spec.queue!;
    const removable = victim.workers.filter((w) => !victim.grownIndices.has(w.index)).sort((a, b) => b.index - a.index);
    let left = victim.workers.length - victim.grownIndices.size - wg.min;
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
  if (!done) {
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
  return [...byVictim].map(([victim, workers]) => {
    removeWorkers(victim, workers);
    return { victim, workers };
  });
}
