// Queues with quotas, borrowing, reclaim and fair share (quota.ts, queue-gate.ts, reclaim.ts), on
// the paper's testbed (3 × 10 cpu / 32Gi) with the builders' default job: a 1 cpu / 2Gi PS and
// 2 cpu / 4Gi workers. Expectations are computed by hand in the comments.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../lab/simulator/policies/registry.ts';
import { describeQuotaBlock, QuotaLedger } from '../../../src/scheduler/queues/quota.ts';
import type { ClusterSnapshot, JobState, QueueSpec } from '../../../src/scheduler/types.ts';
import type { SimPolicyName as PolicyName } from '../../../lab/simulator/policies/registry.ts';
import { applyPlan } from './helpers/apply-plan.ts';
import { cpu, paperTestbed, running, snapshot, waiting, type JobOptions } from './helpers/builders.ts';

const queue = (name: string, nominalCpu: number, o: Partial<QueueSpec> = {}): QueueSpec => ({
  name,
  nominalQuota: { cpu: cpu(nominalCpu) },
  weight: 1,
  ...o,
});
const inQueue = (job: JobState, q: string): JobState => ({ ...job, spec: { ...job.spec, queue: q } });
const waitingIn = (q: string, key: string, o: JobOptions = {}): JobState => inQueue(waiting(key, o), q);
/** A running job of `q` with its PS and `n` workers on `node` (old enough for no cool-down). */
const runningIn = (q: string, key: string, node: string, n: number, o: JobOptions = {}): JobState =>
  inQueue(running(key, [`PS:0@${node}`, ...Array.from({ length: n }, (_, i) => `Worker:${i}@${node}`)], { max: 8, createdAt: 0, ...o }), q);
const withQueues = (snap: ClusterSnapshot, queues: readonly QueueSpec[]): ClusterSnapshot => ({ ...snap, queues });
const NOW = 3_600_000;

/** cpu (cores) held by each queue's running jobs. */
function usage(snap: ClusterSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const j of snap.jobs) {
    if (j.phase !== 'running' || j.spec.queue === undefined) continue;
    for (const r of j.replicas) {
      const req = r.type === 'Worker' ? j.spec.workers!.requests : j.spec.fixed.find((g) => g.type === r.type)!.requests;
      out[j.spec.queue] = (out[j.spec.queue] ?? 0) + (req.cpu ?? 0) / 1000;
    }
  }
  return out;
}

function workersOf(snap: ClusterSnapshot, key: string): number {
  return snap.jobs.find((j) => j.spec.key === key)!.replicas.filter((r) => r.type === 'Worker').length;
}

describe('QuotaLedger (Kueue ClusterQueue arithmetic)', () => {
  it('a queue without a cohort takes up to its nominal quota, and only resources it names are limited', () => {
    const ledger = new QuotaLedger([queue('a', 10)], []);
    ledger.charge('a', { cpu: cpu(7), memory: 1e12 }, 1);
    expect(ledger.room('a', 'cpu').room).toBe(cpu(3));
    expect(ledger.room('a', 'memory').room).toBe(Number.POSITIVE_INFINITY);
    expect(ledger.affordable('a', { cpu: cpu(2) })).toBe(1);
    expect(ledger.check('a', { cpu: cpu(4) })).toMatchObject({ queue: 'a', resource: 'cpu', limit: 'nominal', room: cpu(3) });
  });

  it('in a cohort a queue borrows what others do not use, up to its borrowing limit', () => {
    const ledger = new QuotaLedger([queue('a', 10, { cohort: 'c', borrowingLimit: { cpu: cpu(4) } }), queue('b', 10, { cohort: 'c' })], []);
    expect(ledger.room('a', 'cpu')).toEqual({ room: cpu(14), limit: 'borrowing-limit' });
    expect(ledger.room('b', 'cpu')).toEqual({ room: cpu(20), limit: 'cohort' });
    ledger.charge('b', { cpu: cpu(12) }, 1); // b borrows 2 of a's
    expect(ledger.room('a', 'cpu').room).toBe(cpu(8));
    expect(ledger.isBorrowing('b')).toBe(true);
    // share = borrowed / pool (20) / weight
    expect(ledger.share('b')).toBeCloseTo(2 / 20);
    expect(ledger.share('a')).toBe(0);
  });

  it('a lending limit keeps the rest of the nominal quota for the queue itself', () => {
    const ledger = new QuotaLedger([queue('a', 10, { cohort: 'c', lendingLimit: { cpu: cpu(4) } }), queue('b', 10, { cohort: 'c' })], []);
    // pool = 4 (a's lendable part) + 10 (b's): b may use 14 while a uses nothing.
    expect(ledger.room('b', 'cpu').room).toBe(cpu(14));
    ledger.charge('b', { cpu: cpu(14) }, 1);
    // a keeps its 6 guaranteed cores; the 4 it lends are in use.
    expect(ledger.room('a', 'cpu').room).toBe(cpu(6));
  });
});

describe('describeQuotaBlock (the waiting reason)', () => {
  it('says each unit once and names the quota lent to a borrowing queue, with the numbers kubectl tfjob queues shows', () => {
    // a and b: 6 cpu each in one cohort; b holds 8 (2 of them a's), a holds 4 of its 6 and wants 1 more.
    const ledger = new QuotaLedger([queue('a', 6, { cohort: 'c' }), queue('b', 6, { cohort: 'c' })], []);
    ledger.charge('a', { cpu: cpu(4) }, 1);
    ledger.charge('b', { cpu: cpu(8) }, 1);
    const block = ledger.check('a', { cpu: cpu(1) })!;
    expect(block).toMatchObject({ limit: 'cohort', room: 0, lent: cpu(2), borrowers: ['b'] });
    expect(describeQuotaBlock(block)).toBe(
      'queue a has 0 cpu free for it (4 cpu in use, quota 6 cpu, 2 cpu of it lent to queue b; its cohort has 0 cpu left to lend); needs 1 cpu',
    );
  });

  it('names the resource of amounts whose unit does not (memory), and says nothing is lent when nothing is', () => {
    const ledger = new QuotaLedger([{ name: 'm', nominalQuota: { memory: 4 * 2 ** 30 }, weight: 1 }], []);
    ledger.charge('m', { memory: 4 * 2 ** 30 }, 1);
    expect(describeQuotaBlock(ledger.check('m', { memory: 2 ** 30 })!)).toBe(
      'queue m has 0B memory free for it (4Gi memory in use, quota 4Gi memory); needs 1Gi memory',
    );
  });
});

describe('admission under quotas', () => {
  it('a job whose minimum exceeds what its queue has left waits and says which queue and resource', () => {
    // a: 6 cpu. j1 holds 1 + 2×2 = 5; j2 needs 3, and ranks below j1 (same weight, later), so it may not preempt it.
    const snap = withQueues(
      snapshot(paperTestbed(), [runningIn('a', 'ns/j1', 'node-1', 2, { max: 2 }), waitingIn('a', 'ns/j2', { submittedAt: NOW - 1000 })], {
        now: NOW,
      }),
      [queue('a', 6)],
    );
    const plan = schedule('ours', snap);
    expect(plan.admit).toEqual([]);
    expect(plan.waiting).toHaveLength(1);
    expect(plan.waiting[0]!.reason).toContain('waiting for quota: queue a has 1 cpu free for it (5 cpu in use, quota 6 cpu); needs 3 cpu');
    expect(plan.waiting[0]!.queue).toEqual({ name: 'a', position: 1 });
  });

  it('a job naming a queue that does not exist waits, saying so; an inadmissible job waits with its reason', () => {
    const unknown = waitingIn('nope', 'ns/j1');
    const refused: JobState = {
      ...waiting('ns/j2'),
      spec: { ...waiting('ns/j2').spec, inadmissible: 'LocalQueue ns/team does not exist' },
    };
    const plan = schedule('ours', withQueues(snapshot(paperTestbed(), [unknown, refused], { now: NOW }), [queue('a', 10)]));
    expect(plan.admit).toEqual([]);
    const reasons = Object.fromEntries(plan.waiting.map((w) => [w.job, w.reason]));
    expect(reasons['ns/j1']).toContain('queue nope does not exist');
    expect(reasons['ns/j2']).toContain('LocalQueue ns/team does not exist');
  });

  it('without queues nothing changes: the plan equals the one of a snapshot without the field', () => {
    const jobs = [runningIn('a', 'ns/j1', 'node-1', 2), waiting('ns/j2', { submittedAt: 1 }), waiting('ns/j3', { submittedAt: 2, max: 8 })];
    const plain = snapshot(paperTestbed(), jobs, { now: NOW });
    const noQueueJobs = { ...plain, jobs: plain.jobs.map((j) => ({ ...j, spec: { ...j.spec, queue: undefined } })) };
    for (const policy of ['ours', 'kod2', 'gang-fifo'] as PolicyName[]) {
      expect(schedule(policy, { ...noQueueJobs, queues: [] })).toEqual(schedule(policy, noQueueJobs));
    }
  });
});

describe('scale-out under quotas', () => {
  it('a running job whose queue went away keeps its workers but gets no more', () => {
    const orphan = runningIn('a', 'ns/j1', 'node-1', 1);
    const job: JobState = {
      ...orphan,
      spec: { ...orphan.spec, queue: undefined, inadmissible: 'ClusterQueue a of LocalQueue ns/q does not exist' },
    };
    for (const queues of [[], [queue('b', 10)]]) {
      const plan = schedule('ours', withQueues(snapshot(paperTestbed(), [job], { now: NOW }), queues));
      expect(plan.scaleOut).toEqual([]);
      expect(plan.scaleIn).toEqual([]);
    }
  });

  it('a queue without a cohort grows its jobs up to its nominal quota only', () => {
    // a: 9 cpu; j1 = 1 + 2w ≤ 9 → 4 workers, though the cluster has room for 8.
    const snap = withQueues(snapshot(paperTestbed(), [runningIn('a', 'ns/j1', 'node-1', 1)], { now: NOW }), [queue('a', 9)]);
    const after = applyPlan(snap, schedule('ours', snap));
    expect(workersOf(after, 'ns/j1')).toBe(4);
  });

  it('borrowing stops at the borrowing limit; without one the idle queue lends it all', () => {
    const jobs = [runningIn('a', 'ns/j1', 'node-1', 1, { max: 20 })];
    const limited = withQueues(snapshot(paperTestbed(), jobs, { now: NOW }), [
      queue('a', 10, { cohort: 'c', borrowingLimit: { cpu: cpu(4) } }),
      queue('b', 20, { cohort: 'c' }),
    ]);
    // 1 + 2w ≤ 14 → 6 workers.
    expect(workersOf(applyPlan(limited, schedule('ours', limited)), 'ns/j1')).toBe(6);
    const open = withQueues(snapshot(paperTestbed(), jobs, { now: NOW }), [
      queue('a', 10, { cohort: 'c' }),
      queue('b', 20, { cohort: 'c' }),
    ]);
    // The whole 30-cpu cluster: 1 + 2w ≤ 30 → 14 workers (4 on the PS's node, 5 on each other node).
    expect(workersOf(applyPlan(open, schedule('ours', open)), 'ns/j1')).toBe(14);
  });

  it('two borrowing queues share the idle third queue by their weights', () => {
    // Each of a, b, c has 10 cpu; c is idle. a and b each run a 1-cpu PS and one 1-cpu worker and want 20 workers.
    const small = { ps: { cpu: cpu(1) }, worker: { cpu: cpu(1) }, max: 20 };
    const jobs = [runningIn('a', 'ns/a1', 'node-1', 1, small), runningIn('b', 'ns/b1', 'node-2', 1, small)];
    const cohortOf = (wa: number): QueueSpec[] => [
      queue('a', 10, { cohort: 'c', weight: wa }),
      queue('b', 10, { cohort: 'c' }),
      queue('c', 10, { cohort: 'c' }),
    ];
    const equal = withQueues(snapshot(paperTestbed(), jobs, { now: NOW }), cohortOf(1));
    // Up to nominal: 10 each; then c's 10 shared 5 / 5.
    expect(usage(applyPlan(equal, schedule('ours', equal)))).toEqual({ a: 15, b: 15 });
    const weighted = withQueues(snapshot(paperTestbed(), jobs, { now: NOW }), cohortOf(2));
    // Fair round: a may borrow 10 × 2/3 → 6 workers, b 10 × 1/3 → 3; the last core goes to the
    // lower share (a: 6/30/2 = b: 3/30/1, tied; a ranks first by key).
    expect(usage(applyPlan(weighted, schedule('ours', weighted)))).toEqual({ a: 17, b: 13 });
  });
});

describe('reclaim and preemption across queues', () => {
  const cohort = [queue('a', 15, { cohort: 'c' }), queue('b', 15, { cohort: 'c' })];

  it('a queue within its nominal quota takes back borrowed workers, the newest first', () => {
    // a holds 1 + 2×14 = 29 of the cohort's 30 (borrowing 14); b's job needs 3 cpu of its 15.
    const a1 = inQueue(
      running('ns/a1', ['PS:0@node-1', ...Array.from({ length: 14 }, (_, i) => `Worker:${i}@node-${1 + Math.floor((i + 1) / 5)}`)], {
        max: 20,
        createdAt: 0,
      }),
      'a',
    );
    const snap = withQueues(snapshot(paperTestbed(), [a1, waitingIn('b', 'ns/b1', { submittedAt: NOW - 1000 })], { now: NOW }), cohort);
    const plan = schedule('ours', snap);
    expect(plan.admit.map((x) => x.job)).toEqual(['ns/b1']);
    // Pool 30, a uses 29: b's 3 need 2 more cpu, one worker of a1's: its highest index. Then b1
    // grows to its maximum of 4 workers (9 cpu, within b's 15) with three more of a1's borrowed ones.
    const reclaimed = plan.scaleIn.filter((s) => s.job === 'ns/a1');
    expect(reclaimed.flatMap((s) => s.remove.map((r) => r.index))).toEqual([13, 12, 11, 10]);
    expect(reclaimed.every((s) => s.forJob === 'ns/b1')).toBe(true);
    const after = applyPlan(snap, plan);
    expect(usage(after)).toEqual({ a: 21, b: 9 });
    expect(workersOf(after, 'ns/b1')).toBe(4);
  });

  it('a job that would itself borrow does not reclaim, and rank never preempts across queues', () => {
    // a holds 1 + 2×7 = 15 (its nominal, not borrowing); b's 1 + 2×8 = 17-cpu job exceeds b's nominal 15.
    const a1 = runningIn('a', 'ns/a1', 'node-1', 4, { max: 8 });
    const a1b: JobState = {
      ...a1,
      replicas: [...a1.replicas, ...[4, 5, 6].map((i) => ({ type: 'Worker', index: i, node: 'node-2', createdAt: 0 }))],
    };
    const big = waitingIn('b', 'ns/b1', { submittedAt: NOW - 1000, min: 8, max: 8, priority: 100 });
    const snap = withQueues(snapshot(paperTestbed(), [a1b, big], { now: NOW }), cohort);
    const plan = schedule('ours', snap);
    expect(plan.scaleIn).toEqual([]);
    expect(plan.admit).toEqual([]);
    expect(plan.waiting[0]!.reason).toContain('waiting for quota: queue b');
  });

  it('within one queue the usual rank rules still preempt', () => {
    // One queue of 30: a light elastic job holds the cluster; a heavier waiting job of the same queue preempts it.
    const a1 = inQueue(
      running('ns/a1', ['PS:0@node-1', ...Array.from({ length: 14 }, (_, i) => `Worker:${i}@node-${1 + Math.floor((i + 1) / 5)}`)], {
        max: 20,
        createdAt: 0,
      }),
      'a',
    );
    const heavy = waitingIn('a', 'ns/a2', { submittedAt: NOW - 1000, priority: 10 });
    const snap = withQueues(snapshot(paperTestbed(), [a1, heavy], { now: NOW }), [queue('a', 30)]);
    const plan = schedule('ours', snap);
    expect(plan.admit.map((x) => x.job)).toEqual(['ns/a2']);
    expect(plan.scaleIn.map((s) => s.job)).toEqual(['ns/a1']);
  });
});

describe('fair share among borrowers', () => {
  it("a queue that borrowed all of an idle queue's quota shares it with a second borrower by weight", () => {
    // a, b, c: 10 cpu each, c idle. a's job (1-cpu PS and workers) holds 20 cpu: all of c's quota.
    // b's job holds 10 and wants more: borrowed capacity moves from a to b until both borrow 5.
    const small = { ps: { cpu: cpu(1) }, worker: { cpu: cpu(1) }, max: 30 };
    const a1 = inQueue(
      running('ns/a1', ['PS:0@node-1', ...Array.from({ length: 19 }, (_, i) => `Worker:${i}@node-${1 + Math.floor((i + 1) / 10)}`)], {
        ...small,
        createdAt: 0,
      }),
      'a',
    );
    const b1 = inQueue(
      running('ns/b1', ['PS:0@node-3', ...Array.from({ length: 9 }, (_, i) => `Worker:${i}@node-3`)], { ...small, createdAt: 0 }),
      'b',
    );
    const queues = (wa: number) => [
      queue('a', 10, { cohort: 'c', weight: wa }),
      queue('b', 10, { cohort: 'c' }),
      queue('c', 10, { cohort: 'c' }),
    ];
    let snap = withQueues(snapshot(paperTestbed(), [a1, b1], { now: NOW }), queues(1));
    expect(usage(snap)).toEqual({ a: 20, b: 10 });
    const plan = schedule('ours', snap);
    expect(plan.scaleIn.every((s) => s.job === 'ns/a1' && s.forJob === 'ns/b1' && s.reclaimedBy === 'b')).toBe(true);
    snap = applyPlan(snap, plan);
    expect(usage(snap)).toEqual({ a: 15, b: 15 });
    // A second pass changes nothing: the split is stable (no ping-pong).
    const again = schedule('ours', { ...snap, now: NOW + 120_000 });
    expect(again.scaleIn).toEqual([]);
    expect(again.scaleOut).toEqual([]);
    // With a's weight 3 (shares: a's borrowed / 30 / 3, b's / 30): a worker moves while a's share after
    // stays at least b's: 9/90 ≥ 1/30, 8/90 ≥ 2/30, but not 7/90 ≥ 3/30. a borrows 8, b 2.
    const heavy = withQueues(snapshot(paperTestbed(), [a1, b1], { now: NOW }), queues(3));
    expect(usage(applyPlan(heavy, schedule('ours', heavy)))).toEqual({ a: 18, b: 12 });
  });
});

describe('queue invariants over many passes', () => {
  it('no queue ever holds more than its nominal quota plus what it may borrow, and the cohort never more than its pool', () => {
    const queues = [
      queue('a', 12, { cohort: 'c', borrowingLimit: { cpu: cpu(6) } }),
      queue('b', 10, { cohort: 'c', lendingLimit: { cpu: cpu(5) } }),
      queue('solo', 8),
    ];
    const arrivals: JobState[] = [];
    for (let i = 0; i < 18; i++) {
      const q = ['a', 'b', 'solo'][i % 3]!;
      arrivals.push(
        waitingIn(q, `ns/${q}-${i}`, { submittedAt: i * 60_000, min: 1 + (i % 2), max: 2 + (i % 5), priority: i % 4 === 0 ? 5 : 0 }),
      );
    }
    for (const policy of ['ours', 'kod2', 'gang-fifo'] as PolicyName[]) {
      let snap: ClusterSnapshot = withQueues(snapshot(paperTestbed(), [], { now: 0 }), queues);
      for (let now = 0; now <= 40 * 60_000; now += 30_000) {
        const jobs = snap.jobs.map((j): JobState => {
          // Jobs finish 6 minutes after admission (their first worker's creation).
          const started = Math.min(...j.replicas.map((r) => r.createdAt ?? Number.POSITIVE_INFINITY));
          return j.phase === 'running' && now - started >= 6 * 60_000 ? { ...j, phase: 'finished', replicas: [] } : j;
        });
        for (const a of arrivals) if (a.spec.submittedAt <= now && !jobs.some((j) => j.spec.key === a.spec.key)) jobs.push(a);
        const before: ClusterSnapshot = { ...snap, now, jobs };
        const plan = schedule(policy, before);
        const after = applyPlan(before, {
          ...plan,
          admit: plan.admit.map((x) => ({ ...x, replicas: x.replicas.map((r) => ({ ...r, createdAt: now })) })),
        });
        const u = usage(after);
        expect(u['a'] ?? 0, `${policy} at ${now}`).toBeLessThanOrEqual(18);
        expect(u['solo'] ?? 0, `${policy} at ${now}`).toBeLessThanOrEqual(8);
        // b keeps 5 for itself: a may use at most 12 + 5 of the pool; b at most 10 + (a's unused).
        expect((u['a'] ?? 0) + (u['b'] ?? 0), `${policy} at ${now}`).toBeLessThanOrEqual(22);
        snap = after;
      }
    }
  });
});

describe('positions', () => {
  it('each waiting job knows its place in its own queue', () => {
    const snap = withQueues(
      snapshot(
        paperTestbed(),
        [
          runningIn('a', 'ns/a0', 'node-1', 1, { max: 1 }),
          waitingIn('a', 'ns/a1', { submittedAt: 1 }),
          waitingIn('a', 'ns/a2', { submittedAt: 2 }),
          waitingIn('b', 'ns/b1', { submittedAt: 3 }),
        ],
        { now: NOW },
      ),
      [queue('a', 3), queue('b', 2)],
    );
    const plan = schedule('kod2', snap, DEFAULT_SCHEDULER_CONFIG);
    expect(plan.waiting.map((w) => [w.job, w.queue])).toEqual([
      ['ns/a1', { name: 'a', position: 1 }],
      ['ns/a2', { name: 'a', position: 2 }],
      ['ns/b1', { name: 'b', position: 1 }],
    ]);
  });
});

describe('gang-fifo with quotas (Kueue StrictFIFO per queue)', () => {
  it('a blocked head blocks only its own queue', () => {
    // a: 10 cpu, a0 holds 3; a1's gang at max (1 + 4×2 = 9) does not fit the 7 left; a2 (3 cpu)
    // would, but waits behind it; b1 is admitted.
    const snap = withQueues(
      snapshot(
        paperTestbed(),
        [
          runningIn('a', 'ns/a0', 'node-1', 1, { max: 1 }),
          waitingIn('a', 'ns/a1', { submittedAt: 1 }),
          waitingIn('a', 'ns/a2', { submittedAt: 2, max: 1 }),
          waitingIn('b', 'ns/b1', { submittedAt: 3 }),
        ],
        { now: NOW },
      ),
      [queue('a', 10), queue('b', 10)],
    );
    const plan = schedule('gang-fifo', snap);
    expect(plan.admit.map((x) => x.job)).toEqual(['ns/b1']);
    const reasons = Object.fromEntries(plan.waiting.map((w) => [w.job, w.reason]));
    expect(reasons['ns/a1']).toContain('waiting for quota: queue a');
    expect(reasons['ns/a2']).toContain('waiting behind ns/a1');
  });

  it('a job larger than its queue can ever hold is skipped, not left to block the queue', () => {
    // a: 5 cpu. gang-fifo: a1's gang is 9 cpu; ours: a1's minimum (3 workers) is 7 cpu.
    const jobs = (min: number): JobState[] => [
      waitingIn('a', 'ns/a1', { submittedAt: 1, min }),
      waitingIn('a', 'ns/a2', { submittedAt: 2, max: 1 }),
    ];
    for (const [policy, min] of [
      ['gang-fifo', 1],
      ['ours', 3],
    ] as const) {
      const plan = schedule(policy, withQueues(snapshot(paperTestbed(), jobs(min), { now: NOW }), [queue('a', 5)]));
      expect(plan.admit.map((x) => x.job)).toEqual(['ns/a2']);
      expect(plan.waiting[0]!.reason).toMatch(/needs (9|7) cpu of cpu, more than queue a can ever hold \(5 cpu/);
    }
  });
});
