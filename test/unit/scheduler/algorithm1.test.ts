// Algorithm 1 (one scheduling pass) for kod2 and ours, on the paper's testbed.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../lab/simulator/policies/registry.ts';
import { cpu, describeReplicas, Gi, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const LIGHT = { cpu: cpu(4), memory: 8 * Gi };
const MEDIUM = { cpu: cpu(2), memory: 4 * Gi };
const HEAVY = { cpu: cpu(1), memory: 2 * Gi };
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

describe('Algorithm 1', () => {
  it('lines 5–9: the highest-weight waiting job is placed; kod2 admits only it per pass, ours all that fit', () => {
    const snap = snapshot(paperTestbed(), [
      waiting('light', { worker: LIGHT, submittedAt: 0 }),
      waiting('medium', { worker: MEDIUM, submittedAt: 0 }),
      waiting('heavy', { worker: HEAVY, submittedAt: 0 }),
    ]);
    const kod2 = schedule('kod2', snap);
    expect(kod2.admit.map((a) => a.job)).toEqual(['heavy']);
    expect(kod2.waiting.map((w) => w.job)).toEqual(['medium', 'light']);
    expect(kod2.waiting[0]!.reason).toContain('heavy (weight 0.66) ranks higher and is handled first');
    const ours = schedule('ours', snap);
    expect(ours.admit.map((a) => a.job)).toEqual(['heavy', 'medium', 'light']);
    expect(ours.waiting).toEqual([]);
  });

  it('lines 18–26: below the running maximum, waiting jobs that fit are admitted by weight, without preemption', () => {
    // Running heavy job R (ω≈0.66); idle cpu 3 / 0 / 0. medium (3 cpu) fits, light (5 cpu) does not.
    const snap = snapshot(
      paperTestbed(),
      [
        running('R', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2', 'Worker:2@node-3'], { worker: HEAVY }),
        waiting('light', { worker: LIGHT, submittedAt: 1 }),
        waiting('medium', { worker: MEDIUM, submittedAt: 2 }),
      ],
      { otherPods: busy({ 'node-1': 5, 'node-2': 9, 'node-3': 9 }) },
    );
    const plan = schedule('kod2', snap);
    expect(plan.scaleIn).toEqual([]);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['medium', ['PS:0@node-1', 'Worker:0@node-1']]]);
    expect(plan.waiting.map((w) => w.job)).toEqual(['light']);
    expect(plan.waiting[0]!.reason).toMatch(/weight 0\.1\d below running max 0\.66 \(R\), so it may not preempt/);
  });

  it('a job that cannot fit even an empty cluster never blocks the head position', () => {
    const snap = snapshot(paperTestbed(), [
      waiting('impossible', { worker: HEAVY, constraints: { nodeSelector: { gpu: 'a100' } }, submittedAt: 0 }),
      waiting('ok', { worker: MEDIUM, submittedAt: 1 }),
    ]);
    for (const policy of ['kod2', 'ours'] as const) {
      const plan = schedule(policy, snap);
      expect(plan.weights.impossible!).toBeGreaterThan(plan.weights.ok!);
      expect(plan.admit.map((a) => a.job)).toEqual(['ok']);
      expect(plan.waiting[0]!.reason).toContain(
        'cannot be placed even with no other TFJob running: no node accepts PS (3 nodes: 3 nodeSelector mismatch)',
      );
    }
  });

  it('line 5 compares within the priority class: a running job of a higher class does not stop preemption in a lower one', () => {
    const snap = snapshot(
      paperTestbed(),
      [
        running('vip', ['PS:0@node-3', 'Worker:0@node-3'], { worker: HEAVY, priority: 100 }),
        running('L', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2', 'Worker:2@node-2'], { worker: LIGHT }),
        waiting('M', { worker: MEDIUM, submittedAt: 5 }),
      ],
      { otherPods: busy({ 'node-1': 5, 'node-2': 2, 'node-3': 8 }) },
    );
    const plan = schedule('kod2', snap);
    expect(plan.scaleIn.map((s) => [s.job, s.forJob])).toEqual([['L', 'M']]);
    expect(plan.admit.map((a) => a.job)).toEqual(['M']);
  });

  it('equal weights: the earlier t_j is admitted first, then the key', () => {
    const snap = snapshot(paperTestbed(), [
      waiting('b', { submittedAt: 5 }),
      waiting('a', { submittedAt: 5 }),
      waiting('c', { submittedAt: 1 }),
    ]);
    expect(schedule('kod2', snap).admit.map((a) => a.job)).toEqual(['c']);
    expect(schedule('ours', snap).admit.map((a) => a.job)).toEqual(['c', 'a', 'b']);
  });

  it('ours backfills behind a blocked head, around a starving one only off its reserved nodes; kod2 never backfills', () => {
    // Idle cpu 2 / 2 / 2. Head "big" (ω ≈ 0.16) needs two 3-cpu workers: no node holds one, and
    // the running R (ω ≈ 0.08) is at its minimum, so nothing can be preempted. "small" (ω ≈ 0.14,
    // a 1-cpu / 20Gi worker) fits on node-2 but ranks lower.
    const jobs = [
      running('R', ['PS:0@node-1', 'Worker:0@node-1'], { worker: { cpu: cpu(6), memory: 12 * Gi }, min: 1, max: 1 }),
      waiting('big', { worker: { cpu: cpu(3), memory: 4 * Gi }, min: 2, submittedAt: 0 }),
      waiting('small', { worker: { cpu: cpu(1), memory: 20 * Gi }, submittedAt: 1 }),
    ];
    const snap = snapshot(paperTestbed(), jobs, { now: 60_000, otherPods: busy({ 'node-1': 1, 'node-2': 8, 'node-3': 8 }) });
    const kod2 = schedule('kod2', snap);
    expect(kod2.admit).toEqual([]);
    expect(kod2.waiting.map((w) => w.job)).toEqual(['big', 'small']);
    const ours = schedule('ours', snap);
    expect(ours.weights.big!).toBeGreaterThan(ours.weights.small!);
    expect(ours.weights.big!).toBeGreaterThan(ours.weights.R!);
    // (Scale-out then grows small on node-3, the most idle node after its PS's.)
    expect(ours.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([
      ['small', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-3']],
    ]);
    expect(ours.waiting.map((w) => w.job)).toEqual(['big']);
    // big starves: it reserves node-1, where its minimum configuration goes on an empty cluster.
    // ours still admits small, on node-2, but grows nothing big may preempt while it starves: a
    // starving job ignores the scale-out cool-down, so the next pass would take the worker back.
    const config = resolveSchedulerConfig({ starveLimitMs: 60_000 });
    const starving = schedule('ours', snap, config);
    expect(starving.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['small', ['PS:0@node-2', 'Worker:0@node-2']]]);
    expect(starving.scaleOut).toEqual([]);
    expect(starving.waiting.map((w) => [w.job, w.starving])).toEqual([['big', true]]);
    // kod2 admits nothing while its head starves.
    const kod2Starving = schedule('kod2', snap, config);
    expect(kod2Starving.admit).toEqual([]);
    expect(kod2Starving.waiting.find((w) => w.job === 'small')!.reason).toContain('reserved for starving big');
  });

  it('ours grows no job a starving job may preempt while it waits; a higher class still grows', () => {
    // Other tenants leave 5.5 cpu per node. W needs a 5.5-cpu worker: it fits the cluster without
    // TFJobs, but H and L take a little of every node, and L is at its minimum: W is blocked.
    const small = { ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(1), memory: 2 * Gi }, min: 1, max: 4 };
    const jobs = [
      running('H', ['PS:0@node-1', 'Worker:0@node-3'], { ...small, max: 2, priority: 100 }),
      running('L', ['PS:0@node-2', 'Worker:0@node-3'], small),
      waiting('W', { ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(5.5), memory: 4 * Gi }, submittedAt: 0 }),
    ];
    const snap = snapshot(paperTestbed(), jobs, { now: 60_000, otherPods: busy({ 'node-1': 4.5, 'node-2': 4.5, 'node-3': 4.5 }) });
    const grown = (plan: ReturnType<typeof schedule>) => plan.scaleOut.map((s) => s.job).sort();
    expect(grown(schedule('ours', snap))).toEqual(['H', 'L']);
    const starving = schedule('ours', snap, resolveSchedulerConfig({ starveLimitMs: 60_000 }));
    expect(starving.waiting.map((w) => [w.job, w.starving])).toEqual([['W', true]]);
    expect(grown(starving)).toEqual(['H']);
  });

  it('starvation raises a waiting job above every non-starving job of its class and reports it', () => {
    const config = resolveSchedulerConfig({ starveLimitMs: 10_000 });
    const snap = snapshot(
      paperTestbed(),
      [waiting('old-light', { worker: LIGHT, submittedAt: 0 }), waiting('new-heavy', { worker: HEAVY, submittedAt: 9_000 })],
      { now: 10_000 },
    );
    const plan = schedule('kod2', snap, config);
    expect(plan.weights['old-light']).toBe(1);
    expect(plan.admit.map((a) => a.job)).toEqual(['old-light']);
    const w = plan.waiting.find((x) => x.job === 'new-heavy')!;
    expect(w.starving).toBe(false);
    // One millisecond earlier, it is not yet starving and the heavy job goes first.
    expect(schedule('kod2', { ...snap, now: 9_999 }, config).admit.map((a) => a.job)).toEqual(['new-heavy']);
  });

  it('never mutates the snapshot', () => {
    const snap = snapshot(paperTestbed(), [running('R', ['PS:0@node-1', 'Worker:0@node-1']), waiting('w', { submittedAt: 3 })], { now: 4 });
    const copy = structuredClone(snap);
    const frozen = deepFreeze(structuredClone(snap));
    for (const p of ['tf-operator', 'gang-fifo', 'kod2', 'ours'] as const) {
      schedule(p, snap);
      expect(() => schedule(p, frozen)).not.toThrow();
    }
    expect(snap).toEqual(copy);
  });
});

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
