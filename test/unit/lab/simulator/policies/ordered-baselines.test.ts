// The fixed-size preemptive baselines (lab/simulator/policies/ordered-gang.ts): Tiresias's 2D-LAS and the
// clairvoyant SRTF/SRSF oracles, on two 10-cpu nodes with hand-computed expectations. A gang of
// 1 PS (1 cpu) and 3 workers (3 cpu) fills a node exactly.
import { describe, expect, it } from 'vitest';
import { TIRESIAS_QUEUE_THRESHOLD_WORKER_SECONDS } from '../../../../../lab/simulator/policies/tiresias.ts';
import { schedule } from '../../../../../lab/simulator/policies/registry.ts';
import type { JobState } from '../../../../../src/scheduler/types.ts';
import { cpu, node, running, snapshot, waiting, type JobOptions } from '../../../scheduler/helpers/builders.ts';

const GANG: JobOptions = { ps: { cpu: cpu(1) }, worker: { cpu: cpu(3) }, min: 3, max: 3 };
const nodes = [node('n1', { cpu: cpu(10) }), node('n2', { cpu: cpu(10) })];
const on = (n: string) => [`PS:0@${n}`, `Worker:0@${n}`, `Worker:1@${n}`, `Worker:2@${n}`];
const served = (j: JobState, workerSeconds: number): JobState => ({ ...j, attainedWorkerSeconds: workerSeconds });
const Q1 = TIRESIAS_QUEUE_THRESHOLD_WORKER_SECONDS;

describe('tiresias', () => {
  it('a job of the first queue suspends a running job of the second, never one of the first', () => {
    const snap = snapshot(nodes, [
      served(running('R1', on('n1'), { ...GANG, submittedAt: 0 }), Q1 - 1),
      served(running('R2', on('n2'), { ...GANG, submittedAt: 10 }), Q1),
      waiting('W', { ...GANG, submittedAt: 20 }),
    ]);
    const plan = schedule('tiresias', snap);
    expect(plan.suspend).toEqual([{ job: 'R2', forJob: 'W' }]);
    expect(plan.admit.map((a) => [a.job, a.replicas.map((r) => r.node)])).toEqual([['W', ['n2', 'n2', 'n2', 'n2']]]);
    expect(plan.scaleIn).toEqual([]);
  });

  it('within a queue it is first come, first served: a later job waits and says why', () => {
    const snap = snapshot(nodes, [
      served(running('R1', on('n1'), { ...GANG, submittedAt: 0 }), 10),
      served(running('R2', on('n2'), { ...GANG, submittedAt: 10 }), 10),
      waiting('W', { ...GANG, submittedAt: 20 }),
    ]);
    const plan = schedule('tiresias', snap);
    expect(plan.suspend).toEqual([]);
    expect(plan.admit).toEqual([]);
    expect(plan.waiting.map((w) => w.job)).toEqual(['W']);
    expect(plan.waiting[0]!.reason).toContain('Tiresias');
  });

  it('a higher priority class is never suspended for a lower one', () => {
    const snap = snapshot(nodes, [
      served(running('HIGH', on('n1'), { ...GANG, submittedAt: 0, priority: 100 }), 10 * Q1),
      served(running('LOW', on('n2'), { ...GANG, submittedAt: 0 }), Q1),
      waiting('W', { ...GANG, submittedAt: 20 }),
    ]);
    expect(schedule('tiresias', snap).suspend).toEqual([{ job: 'LOW', forJob: 'W' }]);
  });

  it('a job that cannot fit even by suspending does not block a smaller one behind it', () => {
    const snap = snapshot(nodes, [
      running('R1', on('n1'), { ...GANG, submittedAt: 0 }),
      waiting('BIG', { ...GANG, min: 6, max: 6, submittedAt: 10 }),
      waiting('SMALL', { ...GANG, submittedAt: 20 }),
    ]);
    const plan = schedule('tiresias', snap);
    expect(plan.suspend).toEqual([]);
    expect(plan.admit.map((a) => a.job)).toEqual(['SMALL']);
    expect(plan.waiting.map((w) => w.job)).toEqual(['BIG']);
  });
});

describe('clairvoyant oracles', () => {
  // One node; R (PS + 1 worker, 4 cpu) has 4,000 s left: service 4,000. W (a full-node gang of 3
  // workers) has 2,000 s left: service 6,000. Another tenant holds 4 cpu, so W fits only without R.
  const one = [node('n1', { cpu: cpu(10) })];
  const other = [{ key: 'x/other', node: 'n1', requests: { cpu: cpu(4) } }];
  const R = { ...running('R', ['PS:0@n1', 'Worker:0@n1'], { ...GANG, min: 1, max: 1 }), oracleRemainingSeconds: 4000 };
  const W = { ...waiting('W', { ...GANG, ps: { cpu: cpu(0) }, worker: { cpu: cpu(2) }, submittedAt: 5 }), oracleRemainingSeconds: 2000 };
  const snap = snapshot(one, [R, W], { otherPods: other });

  it('srtf-oracle: the job with less time left suspends the other', () => {
    const plan = schedule('srtf-oracle', snap);
    expect(plan.suspend).toEqual([{ job: 'R', forJob: 'W' }]);
    expect(plan.admit.map((a) => a.job)).toEqual(['W']);
  });

  it('srsf-oracle: time × workers decides, so the narrow job keeps running', () => {
    const plan = schedule('srsf-oracle', snap);
    expect(plan.suspend).toEqual([]);
    expect(plan.waiting.map((w) => w.job)).toEqual(['W']);
  });

  it('an oracle without the remaining work refuses to guess', () => {
    const blind = snapshot(one, [running('R', ['PS:0@n1', 'Worker:0@n1'], { ...GANG, min: 1, max: 1 }), W], { otherPods: other });
    expect(() => schedule('srsf-oracle', blind)).toThrow(/remaining work/);
  });
});
