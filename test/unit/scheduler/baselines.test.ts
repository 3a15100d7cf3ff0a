import { describe, expect, it } from 'vitest';
import { getPolicy } from '../../../src/scheduler/index.ts';
import { getSimPolicy, schedule } from '../../../lab/simulator/policies/registry.ts';
import { cpu, describeReplicas, Gi, node, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

describe('tf-operator baseline', () => {
  it('creates every replica at full count on submission and spreads pods LeastAllocated, one by one', () => {
    // Empty testbed; PS 1 cpu/2Gi and four 2 cpu/4Gi workers. Each pod goes to the node with the most
    // free cpu+memory share after placing it, ties by name:
    // PS → node-1; W0 → node-2; W1 → node-3; W2 → node-1 (1 cpu used vs 2); W3 → node-2 (tie with node-3).
    const plan = schedule('tf-operator', snapshot(paperTestbed(), [waiting('a')], { now: 7 }));
    expect(plan.admit.map((a) => a.job)).toEqual(['a']);
    expect(plan.admit[0]!.replicas.map((r) => `${r.type}:${r.index}@${r.node ?? '-'}`)).toEqual([
      'PS:0@node-1',
      'Worker:0@node-2',
      'Worker:1@node-3',
      'Worker:2@node-1',
      'Worker:3@node-2',
    ]);
    expect(plan.admit[0]!.replicas.every((r) => r.createdAt === 7)).toBe(true);
    expect(plan.scaleIn).toEqual([]);
    expect(plan.scaleOut).toEqual([]);
    expect(plan.waiting).toEqual([]);
  });

  it('leaves pods that fit nowhere Pending, holding nothing: partial allocation', () => {
    // One 10-cpu node; A takes 9 cpu; B's PS takes the last cpu and its workers stay Pending.
    const nodes = [node('only', { cpu: cpu(10), memory: 64 * Gi })];
    const plan = schedule('tf-operator', snapshot(nodes, [waiting('A', { submittedAt: 1 }), waiting('B', { submittedAt: 2 })]));
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([
      ['A', ['PS:0@only', 'Worker:0@only', 'Worker:1@only', 'Worker:2@only', 'Worker:3@only']],
      ['B', ['PS:0@only', 'Worker:0@-', 'Worker:1@-', 'Worker:2@-', 'Worker:3@-']],
    ]);
  });

  it('binds Pending pods in later passes, oldest first, when room appears', () => {
    const nodes = [node('only', { cpu: cpu(10), memory: 64 * Gi })];
    const snap = snapshot(
      nodes,
      [
        running('old', ['PS:0@only', 'Worker:0', 'Worker:1'], { submittedAt: 1, createdAt: 100, max: 2 }),
        running('older', ['PS:0@only', 'Worker:0'], { submittedAt: 0, createdAt: 50, max: 1 }),
        waiting('new', { submittedAt: 300, max: 1 }),
      ],
      { now: 400, otherPods: [{ key: 'x/y', node: 'only', requests: { cpu: cpu(3) } }] },
    );
    // Idle: 10 − 1 − 1 − 3 = 5 cpu: older's worker (2), then old's worker 0 (2); 1 cpu left for the
    // new job's PS (created now, so last); everything else stays Pending.
    const plan = schedule('tf-operator', snap);
    expect(plan.bind.map((b) => `${b.job}/${b.replica.type}:${b.replica.index}@${b.replica.node ?? '-'}`)).toEqual([
      'older/Worker:0@only',
      'old/Worker:0@only',
    ]);
    expect(plan.bind[0]!.replica.createdAt).toBe(50);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['new', ['PS:0@only', 'Worker:0@-']]]);
  });

  it('orders the scheduler queue by pod priority before creation time, and never preempts', () => {
    const nodes = [node('only', { cpu: cpu(3), memory: 64 * Gi })];
    const snap = snapshot(nodes, [waiting('early', { submittedAt: 0, max: 1 }), waiting('vip', { submittedAt: 10, max: 1, priority: 5 })], {
      now: 20,
    });
    const plan = schedule('tf-operator', snap);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([
      ['vip', ['PS:0@only', 'Worker:0@only']],
      ['early', ['PS:0@-', 'Worker:0@-']],
    ]);
  });
});

describe('gang-fifo baseline', () => {
  it('admits a job only when all its pods at maximum size fit, strictly FIFO', () => {
    // first (1 + 8·2 = 17 cpu) takes node-1 (PS + 4 workers) and node-2 (4 workers). second's four
    // 4.5-cpu workers would fit an empty cluster (two per node) but only node-3 has room for two
    // now; third (5 cpu) would fit node-3 but waits behind second.
    const snap = snapshot(paperTestbed(), [
      waiting('first', { submittedAt: 0, max: 8 }),
      waiting('second', { submittedAt: 1, worker: { cpu: cpu(4.5), memory: 8 * Gi } }),
      waiting('third', { submittedAt: 2, worker: { cpu: cpu(1), memory: Gi } }),
    ]);
    const plan = schedule('gang-fifo', snap, undefined);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([
      ['first', ['PS:0@node-1', ...[0, 1, 2, 3].map((i) => `Worker:${i}@node-1`), ...[4, 5, 6, 7].map((i) => `Worker:${i}@node-2`)].sort()],
    ]);
    expect(plan.waiting.map((w) => w.job)).toEqual(['second', 'third']);
    expect(plan.waiting[0]!.reason).toContain('head of the FIFO queue');
    expect(plan.waiting[1]!.reason).toContain('waiting behind second in strict FIFO order');
  });

  it('serves higher priority classes first and skips a gang that can never fit', () => {
    const snap = snapshot(paperTestbed(), [
      waiting('never', { submittedAt: 0, worker: { cpu: cpu(11), memory: Gi } }),
      waiting('low', { submittedAt: 1 }),
      waiting('high', { submittedAt: 2, priority: 3 }),
    ]);
    const plan = schedule('gang-fifo', snap);
    expect(plan.admit.map((a) => a.job)).toEqual(['high', 'low']);
    expect(plan.waiting.map((w) => w.job)).toEqual(['never']);
    expect(plan.waiting[0]!.reason).toContain('cannot be placed even with no other TFJob running');
  });

  it('does not preempt or scale', () => {
    const snap = snapshot(paperTestbed(), [running('r', ['PS:0@node-1', 'Worker:0@node-1'], { max: 4 }), waiting('w', { submittedAt: 1 })]);
    const plan = schedule('gang-fifo', snap);
    expect(plan.scaleIn).toEqual([]);
    expect(plan.scaleOut).toEqual([]);
  });
});

describe('policy registry', () => {
  it('returns each policy by name and rejects unknown names', () => {
    for (const name of ['tf-operator', 'kod2', 'ours'] as const) expect(getPolicy(name).name).toBe(name);
    expect(() => getPolicy('fifo' as never)).toThrow(/unknown scheduling policy "fifo"/);
    expect(() => getPolicy('gang-fifo' as never)).toThrow(/unknown scheduling policy "gang-fifo"/);
    expect(getSimPolicy('gang-fifo').name).toBe('gang-fifo');
  });
});
