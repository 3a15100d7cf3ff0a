// Algorithm 3 (Scale-Out), hand-computed on the paper's testbed.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { kneeLimit } from '../../../src/scheduler/model/scale-out.ts';
import { cpu, describeReplicas, Gi, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

describe('Scale-Out (Algorithm 3)', () => {
  it('kod2 walks nodes in name order and fills each node while a worker fits, up to the maximum', () => {
    // J: PS + 1 worker (2 cpu) on node-3, max 4. node-1 is empty: kod2 puts all 3 new workers there.
    const plan = schedule('kod2', snapshot(paperTestbed(), [running('J', ['PS:0@node-3', 'Worker:0@node-3'])], { now: 5 }));
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([
      ['J', ['Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1']],
    ]);
    expect(plan.scaleOut[0]!.add.every((r) => r.createdAt === 5)).toBe(true);
  });

  it('ours puts new workers on the PS’s node first, then on the fullest nodes that still have room', () => {
    const snap = snapshot(paperTestbed(), [running('J', ['PS:0@node-3', 'Worker:0@node-3'], { max: 6 })], {
      otherPods: busy({ 'node-2': 3 }),
    });
    // node-3 has 7 cpu idle: 3 workers of 2 cpu; then the fullest other node with room, node-2
    // (7 idle), for 2 more; node-1 stays empty for the next admission.
    const plan = schedule('ours', snap);
    expect(plan.scaleOut.map((s) => describeReplicas(s.add))).toEqual([
      ['Worker:1@node-3', 'Worker:2@node-3', 'Worker:3@node-3', 'Worker:4@node-2', 'Worker:5@node-2'],
    ]);
    // Without packing: the most idle other node, node-1 (10 idle).
    const spread = schedule('ours', snap, resolveSchedulerConfig({ improvements: { scaleOutPacksNodes: false } }));
    expect(spread.scaleOut.map((s) => describeReplicas(s.add))).toEqual([
      ['Worker:1@node-3', 'Worker:2@node-3', 'Worker:3@node-3', 'Worker:4@node-1', 'Worker:5@node-1'],
    ]);
  });

  it('packing walks past full nodes and nodes too small for one worker, and spills to the next fullest', () => {
    // node-1 8 cpu used (2 idle), node-2 9 used (1 idle: too small for a 2-cpu worker), node-3
    // 4 used (6 idle). J (PS on node-1) wants 5 more: node-1's 2 cpu first (its PS), then node-3
    // (6 idle: 3 workers), which leaves one more for nowhere.
    const snap = snapshot(paperTestbed(), [running('J', ['PS:0@node-1', 'Worker:0@node-1'], { max: 6 })], {
      otherPods: busy({ 'node-1': 5, 'node-2': 9, 'node-3': 4 }),
    });
    const plan = schedule('ours', snap);
    expect(plan.scaleOut.map((s) => describeReplicas(s.add))).toEqual([
      ['Worker:1@node-1', 'Worker:2@node-3', 'Worker:3@node-3', 'Worker:4@node-3'],
    ]);
  });

  it('packing without the PS preference fills the fullest nodes with room, the PS’s node included', () => {
    const snap = snapshot(paperTestbed(), [running('J', ['PS:0@node-1', 'Worker:0@node-1'], { max: 3 })], {
      otherPods: busy({ 'node-2': 6 }),
    });
    // node-1: 10 − PS 1 − worker 2 = 7 idle; node-2: 4 idle; node-3: 10. Fullest with room: node-2 (2 workers).
    const plan = schedule('ours', snap, resolveSchedulerConfig({ improvements: { scaleOutPrefersPsNodes: false } }));
    expect(plan.scaleOut.map((s) => describeReplicas(s.add))).toEqual([['Worker:1@node-2', 'Worker:2@node-2']]);
  });

  it('grows the highest-weight job first', () => {
    // 4 cpu idle on node-1 only. Heavy X (1-cpu workers) takes all of it; light Y gets nothing.
    const snap = snapshot(
      paperTestbed(),
      [
        running('Y', ['PS:0@node-2', 'Worker:0@node-2'], { worker: { cpu: cpu(2), memory: 4 * Gi } }),
        running('X', ['PS:0@node-3', 'Worker:0@node-3'], { worker: { cpu: cpu(1), memory: 2 * Gi }, max: 8 }),
      ],
      { otherPods: busy({ 'node-1': 6, 'node-2': 7, 'node-3': 8 }) },
    );
    const plan = schedule('kod2', snap);
    expect(plan.weights.X!).toBeGreaterThan(plan.weights.Y!);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([
      ['X', ['Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1', 'Worker:4@node-1']],
    ]);
  });

  it('gives new workers the lowest free indices', () => {
    const plan = schedule(
      'kod2',
      snapshot(paperTestbed(), [running('J', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:2@node-1'], { max: 4 })]),
    );
    expect(plan.scaleOut.map((s) => s.add.map((r) => r.index))).toEqual([[1, 3]]);
  });

  it('never reuses, in the same pass, an index it just preempted', () => {
    // L loses worker 2 to H on node-2, then regrows on node-3 (which H may not use): it must be
    // index 3, not the index 2 whose pod is still being deleted. ours does not regrow L at all.
    const nodes = paperTestbed().map((n) => ({ ...n, labels: { zone: n.name === 'node-3' ? 'b' : 'a' } }));
    const snap = snapshot(
      nodes,
      [
        running('L', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2', 'Worker:2@node-2'], {
          worker: { cpu: cpu(4), memory: 8 * Gi },
          max: 3,
        }),
        waiting('H', { worker: { cpu: cpu(1), memory: 2 * Gi }, submittedAt: 1, constraints: { nodeSelector: { zone: 'a' } } }),
      ],
      { now: 100, otherPods: busy({ 'node-1': 5, 'node-2': 1, 'node-3': 6 }) },
    );
    const kod2 = schedule('kod2', snap);
    expect(kod2.scaleIn.map((s) => describeReplicas(s.remove))).toEqual([['Worker:2@node-2']]);
    expect(kod2.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([['L', ['Worker:3@node-3']]]);
    const ours = schedule('ours', snap);
    expect(ours.scaleIn.map((s) => describeReplicas(s.remove))).toEqual([['Worker:2@node-2']]);
    expect(ours.scaleOut).toEqual([]);
  });

  it('folds the growth of a job admitted in the same pass into its admission', () => {
    const plan = schedule('kod2', snapshot(paperTestbed(), [waiting('J', { max: 3 })]));
    expect(plan.scaleOut).toEqual([]);
    expect(describeReplicas(plan.admit[0]!.replicas)).toEqual(['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1']);
  });

  it('honours the worker group’s constraints', () => {
    const nodes = paperTestbed().map((n) => ({
      ...n,
      taints: n.name === 'node-1' ? [{ key: 'reserved', effect: 'NoSchedule' as const }] : [],
    }));
    const plan = schedule('kod2', snapshot(nodes, [running('J', ['PS:0@node-3', 'Worker:0@node-3'], { max: 2 })]));
    expect(plan.scaleOut.map((s) => describeReplicas(s.add))).toEqual([['Worker:1@node-2']]);
  });
});

describe('scaling knee (ours)', () => {
  it('stops where one more worker adds less than the configured share of one worker’s throughput', () => {
    // Gains: 1→2 +0.9, 2→3 +0.6, 3→4 +0.2 (< 0.25 × 1.0): stop at 3.
    expect(kneeLimit([1, 1.9, 2.5, 2.7, 2.8], 1, 8, 0.25)).toBe(3);
    expect(kneeLimit([1, 1.9, 2.5, 2.7], 1, 8, 0.1)).toBe(8);
    expect(kneeLimit([1, 1.1], 2, 4, 0.25)).toBe(4);
    expect(kneeLimit([1, 1.1, 1.2], 1, 4, 0.25)).toBe(1);
    expect(kneeLimit([1, 1.1, 1.2], 2, 4, 0.25)).toBe(2);
    expect(kneeLimit(undefined, 1, 4, 0.25)).toBe(4);
    expect(kneeLimit([1, 1.1], 1, 4, undefined)).toBe(4);
    expect(kneeLimit([0, 1], 1, 4, 0.25)).toBe(4);
  });

  it('ours stops scaling out at the knee while others wait; kod2 and ours without the toggle go to the maximum', () => {
    // J (PS + 1 two-cpu worker) on node-1 with 7 cpu to spare; R fills node-2 and node-3 at its
    // minimum; W needs a whole node, so it waits (it would fit an empty cluster).
    const jobs = [
      running('J', ['PS:0@node-1', 'Worker:0@node-1'], { max: 4, scalingCurve: [1, 1.9, 2.5, 2.7] }),
      running('R', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-3'], {
        ps: { cpu: cpu(1), memory: Gi },
        worker: { cpu: cpu(9), memory: Gi },
        min: 2,
        max: 2,
      }),
      waiting('W', { worker: { cpu: cpu(9), memory: Gi }, submittedAt: 1 }),
    ];
    const snap = snapshot(paperTestbed(), jobs);
    const count = (p: ReturnType<typeof schedule>) => p.scaleOut.reduce((s, x) => s + x.add.length, 0);
    const ours = schedule('ours', snap);
    expect(ours.waiting.map((w) => w.job)).toEqual(['W']);
    expect(count(ours)).toBe(2);
    expect(count(schedule('kod2', snap))).toBe(3);
    expect(count(schedule('ours', snap, resolveSchedulerConfig({ improvements: { scalingKnee: false } })))).toBe(3);
  });

  it('ours ignores the knee when nobody waits: idle capacity past the knee still helps', () => {
    const snap = snapshot(paperTestbed(), [running('J', ['PS:0@node-1', 'Worker:0@node-1'], { max: 4, scalingCurve: [1, 1.9, 2.5, 2.7] })]);
    expect(schedule('ours', snap).scaleOut.reduce((s, x) => s + x.add.length, 0)).toBe(3);
  });
});
