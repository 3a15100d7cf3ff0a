// Queues in one pass of a placing policy: the rules of quota.ts applied to the pass's decisions.
// Without queues in the snapshot every method answers as if there were one global queue with no
// quota, so the policies behave exactly as before.
//
//   admission: a job is admitted only if its queue admits its minimum (`blockOf`); a job naming an
//              unknown queue, or one the controller found inadmissible, waits saying so.
//   order:     waiting jobs whose minimum stays within their queue's nominal quota come first (by
//              rank); jobs that would borrow follow, lowest queue share first (dominant-resource
//              fair share by weight), then by rank.
//   preemption by rank stays within a queue: a job may scale in lower-ranked jobs of its own queue
//              only; jobs of other queues lose workers only to reclaim (reclaim.ts), and only
//              while their queue borrows and the job's minimum stays within its nominal quota.
//   scale-out: in three rounds: every queue up to its nominal quota; then borrowing, each queue up
//              to its weighted part of its cohort's free pool, lowest share first; then whatever
//              quota is left, so no capacity the quotas allow stays idle.

import { type CompiledJob, type RunningJob } from '../model/job-model.ts';
import { describeQuotaBlock, heldBy, QuotaLedger } from './quota.ts';
import { formatQuantity } from '../model/resources.ts';
import type { QuotaTrial } from '../model/scale-in.ts';
import type { ClusterSnapshot, Resources, WaitingReason } from '../types.ts';
import { compareRank } from '../ranking/weight.ts';

/** The queue a job is charged to ('' = none). */
export function queueKey(job: CompiledJob): string {
  return job.state.spec.queue ?? '';
}

/** One round of scale-out under quotas: which jobs may grow and how far. */
export interface GrowthRound {
  readonly order: (jobs: readonly RunningJob[]) => RunningJob[];
  readonly limitFor: (job: RunningJob, limit: number) => number;
}

export class QueueGate {
  readonly ledger: QuotaLedger;
  /** Per-queue allowance left in the fair borrowing round (per resource). */
  #allowance: Map<string, Record<string, number>> | undefined;

  constructor(snapshot: ClusterSnapshot, running: readonly RunningJob[]) {
    this.ledger = new QuotaLedger(snapshot.queues ?? [], running);
  }

  get enabled(): boolean {
    return this.ledger.enabled;
  }

  /** Why the job's minimum configuration may not be admitted now by its queue; undefined: it may. */
  blockOf(job: CompiledJob, demand: Resources = job.minRequests): string | undefined {
    const spec = job.state.spec;
    const hard = this.inadmissibleReason(job, demand);
    if (hard !== undefined || spec.queue === undefined) return hard;
    const block = this.ledger.check(spec.queue, demand);
    return block === undefined ? undefined : `waiting for quota: ${describeQuotaBlock(block)}`;
  }

  /**
   * Why the job (its minimum, or `demand`) may not be admitted whatever is preempted: inadmissible,
   * an unknown queue, or more than its queue could ever hold.
   */
  inadmissibleReason(job: CompiledJob, demand: Resources = job.minRequests): string | undefined {
    const spec = job.state.spec;
    if (spec.inadmissible !== undefined) return spec.inadmissible;
    if (spec.queue === undefined) return undefined;
    if (!this.ledger.has(spec.queue)) return `queue ${spec.queue} does not exist; the job waits until it does`;
    const never = this.ledger.neverFits(spec.queue, demand);
    if (never === undefined) return undefined;
    const q = (n: number): string => formatQuantity(never.resource, n);
    return `needs ${q(demand[never.resource] ?? 0)} of ${never.resource}, more than queue ${spec.queue} can ever hold (${q(never.most)}: its quota plus what it may borrow); it cannot run in this queue`;
  }

  /** Running jobs of queues with quotas that may grow by reclaim (reclaim.ts), lowest queue share first, then by rank. */
  growthReceivers(running: readonly RunningJob[]): RunningJob[] {
    return running
      .filter((r) => r.job.workers !== undefined && r.job.state.spec.queue !== undefined && this.ledger.has(r.job.state.spec.queue))
      .sort((a, b) => this.ledger.share(a.job.state.spec.queue!) - this.ledger.share(b.job.state.spec.queue!) || compareRank(a.job, b.job));
  }

  /**
   * The quota side of a scale-in trial for `job` (scale-in.ts): workers freed from their queues one
   * at a time, and whether the job's queue then takes its minimum. While a trial runs the ledger
   * holds its credits; `scaleInFor` takes every one back before it returns.
   */
  quotaTrial(job: CompiledJob): QuotaTrial | undefined {
    const q = job.state.spec.queue;
    if (!this.enabled) return undefined;
    return {
      free: (victim, requests, sign) => {
        this.ledger.charge(queueKey(victim.job) || '\u0000', requests, sign === 1 ? -1 : 1);
      },
      admits: () => q === undefined || this.ledger.check(q, job.minRequests) === undefined,
    };
  }

  /**
   * Whether a victim's workers may be reclaimed for `head`: it runs in another queue of the head's
   * cohort that borrows, and the head's queue is within its nominal quota. Undefined when no victim
   * qualifies. The queues it may reclaim from are found once per head, so the test is cheap over
   * many victims (the ledger must not change while it is in use).
   */
  reclaimTest(head: CompiledJob): ((victim: RunningJob) => boolean) | undefined {
    const hq = head.state.spec.queue;
    if (hq === undefined || !this.withinNominal(head)) return undefined;
    const cohort = this.ledger.cohortOf(hq);
    // A queue the ledger does not know never borrows, so only known queues can qualify.
    const from = new Set(
      this.ledger.queueNames().filter((q) => q !== hq && this.ledger.cohortOf(q) === cohort && this.ledger.isBorrowing(q)),
    );
    if (from.size === 0) return undefined;
    return (victim) => {
      const vq = victim.job.state.spec.queue;
      return vq !== undefined && from.has(vq);
    };
  }

  /** Whether admitting the job's minimum keeps its queue within its nominal quota (unqueued jobs: yes). */
  withinNominal(job: CompiledJob): boolean {
    const q = job.state.spec.queue;
    return q === undefined || this.ledger.fitsNominal(q, job.minRequests);
  }

  /** The waiting jobs in the order the pass considers them (module comment); unchanged without queues. */
  order(waiting: readonly CompiledJob[]): readonly CompiledJob[] {
    if (!this.enabled) return waiting;
    const key = new Map(
      waiting.map((j) => {
        const q = j.state.spec.queue;
        const nominal = this.withinNominal(j);
        return [j, { nominal, share: nominal || q === undefined ? 0 : this.ledger.share(q) }] as const;
      }),
    );
    return [...waiting].sort((a, b) => {
      const ka = key.get(a)!;
      const kb = key.get(b)!;
      return Number(kb.nominal) - Number(ka.nominal) || ka.share - kb.share || compareRank(a, b);
    });
  }

  /** Whether `head` may preempt `victim` by rank: same queue (or no queues at all). */
  sameLine(head: CompiledJob, victim: RunningJob): boolean {
    return queueKey(head) === queueKey(victim.job);
  }

  charge(job: CompiledJob, amount: Resources, sign: 1 | -1): void {
    const q = job.state.spec.queue;
    if (q !== undefined) this.ledger.charge(q, amount, sign);
    if (sign === 1 && q !== undefined && this.#allowance !== undefined) {
      const left = this.#allowance.get(q);
      if (left !== undefined) for (const [k, v] of Object.entries(amount)) if (k in left) left[k] = left[k]! - v;
    }
  }

  /** Credits everything a running job holds (it is suspended whole). */
  release(r: RunningJob): void {
    this.charge(r.job, heldBy(r), -1);
  }

  /** Waiting reasons with each job's queue and position (1-based, in the order given). */
  withPositions(waiting: readonly WaitingReason[], jobs: ReadonlyMap<string, CompiledJob>): WaitingReason[] {
    if (!this.enabled) return [...waiting];
    const seen = new Map<string, number>();
    return waiting.map((w) => {
      const q = jobs.get(w.job)?.state.spec.queue;
      if (q === undefined) return w;
      const position = (seen.get(q) ?? 0) + 1;
      seen.set(q, position);
      return { ...w, queue: { name: q, position } };
    });
  }

  /** How far a running job may grow within what its queue may still take (borrowing included). */
  growthLimit(r: RunningJob, limit: number): number {
    const q = r.job.state.spec.queue;
    const wg = r.job.workers;
    if (r.job.state.spec.inadmissible !== undefined) return r.workers.length;
    if (q === undefined || wg === undefined) return limit;
    return Math.min(limit, r.workers.length + this.ledger.affordable(q, wg.requests));
  }

  /**
   * Whether a worker of `donor` may be replaced by one of `receiver` (performance targets): only
   * within one queue (quota moves between queues by reclaim alone), and only if the receiver's
   * larger requests, if any, still fit the quota.
   */
  mayMove(donor: RunningJob, receiver: RunningJob): boolean {
    if (!this.enabled) return true;
    if (queueKey(donor.job) !== queueKey(receiver.job)) return false;
    const q = receiver.job.state.spec.queue;
    if (q === undefined || donor.job.workers === undefined || receiver.job.workers === undefined) return true;
    const extra: Record<string, number> = {};
    for (const [k, v] of Object.entries(receiver.job.workers.requests)) extra[k] = Math.max(0, v - (donor.job.workers.requests[k] ?? 0));
    return this.ledger.check(q, extra) === undefined;
  }

  /** The scale-out rounds (module comment); one unlimited round without queues. */
  growthRounds(): GrowthRound[] {
    // A running job whose queue went away (or became inadmissible) keeps its workers but gets no more.
    const stays = (r: RunningJob): boolean => r.job.state.spec.inadmissible !== undefined;
    if (!this.enabled) return [{ order: (jobs) => [...jobs], limitFor: (r, limit) => (stays(r) ? r.workers.length : limit) }];
    const affordable = (r: RunningJob, withinNominal: boolean): number => {
      const q = r.job.state.spec.queue;
      const wg = r.job.workers;
      if (q === undefined || wg === undefined) return Number.POSITIVE_INFINITY;
      return this.ledger.affordable(q, wg.requests, withinNominal);
    };
    const byShare = (jobs: readonly RunningJob[]): RunningJob[] => {
      const share = (r: RunningJob): number => (r.job.state.spec.queue === undefined ? 0 : this.ledger.share(r.job.state.spec.queue));
      return jobs
        .map((r) => ({ r, s: share(r) }))
        .sort((a, b) => a.s - b.s || 0)
        .map((x) => x.r);
    };
    const fair: GrowthRound = {
      order: (jobs) => {
        const queued = jobs.filter((r) => r.job.state.spec.queue !== undefined);
        this.#allowance = this.ledger.borrowAllowances(new Set(queued.map((r) => r.job.state.spec.queue!)));
        return byShare(queued);
      },
      limitFor: (r, limit) => {
        const q = r.job.state.spec.queue!;
        const wg = r.job.workers!;
        let n = affordable(r, false);
        const left = this.#allowance?.get(q);
        if (left !== undefined) {
          for (const [k, v] of Object.entries(left)) {
            const each = wg.requests[k] ?? 0;
            if (each > 0) n = Math.min(n, Math.floor(Math.max(0, v) / each + 1e-9));
          }
        }
        return Math.min(limit, r.workers.length + n);
      },
    };
    return [
      {
        order: (jobs) => [...jobs],
        limitFor: (r, limit) => (stays(r) ? r.workers.length : Math.min(limit, r.workers.length + affordable(r, true))),
      },
      fair,
      {
        order: (jobs) => {
          this.#allowance = undefined;
          return byShare(jobs.filter((r) => r.job.state.spec.queue !== undefined));
        },
        limitFor: (r, limit) => (stays(r) ? r.workers.length : Math.min(limit, r.workers.length + affordable(r, false))),
      },
    ];
  }
}
