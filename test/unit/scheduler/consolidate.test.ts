// `consolidateSpreadJobs` (consolidate.ts, actions/consolidate-spread.ts): with nobody waiting, a
// running elastic job with a declared curve whose workers use more nodes than their count needs has
// its workers on the further nodes moved onto the nodes it already uses. Paper testbed: 3 × 10 cpu,
// PS 1 cpu, workers 2 cpu (5 workers fit an empty node, so up to 5 workers need one node).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { Plan } from '../../../src/scheduler/types.ts';
import { snapshotArb } from './helpers/arbitraries.ts';
import { cpu, describeReplicas, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const HOUR_MS = 3_600_000;
const NOW = 2 * HOUR_MS;
const CURVE = [1, 1.9, 2.7, 3.4];
const withToggle = resolveSchedulerConfig({ improvements: { consolidateSpreadJobs: true } });
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

function job(key: string, replicas: readonly string[], o: { curve?: boolean; createdAt?: number; min?: number; max?: number } = {}) {
  return running(key, replicas, {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(2) },
    min: o.min ?? 1,
    max: o.max ?? 3,
    createdAt: o.createdAt ?? 0,
    ...(o.curve === false ? {} : { scalingCurve: CURVE }),
  });
}

/** Scale-ins and scale-outs as `job: replicas` lines. */
const moves = (plan: Plan): string[] => [
  ...plan.scaleIn.map((s) => `in ${s.job} ${describeReplicas(s.remove).join(' ')}${s.relocated === true ? ' (moved)' : ''}`),
  ...plan.scaleOut.map((s) => `out ${s.job} ${describeReplicas(s.add).join(' ')}`),
];

// J: PS and 2 workers on node-1, 1 worker on node-2 (3 workers need one node). node-1 has room for
// one more worker (2 cpu), node-2 and node-3 none.
const spreadJ = (o: Parameters<typeof job>[2] = {}, extra: ReturnType<typeof waiting>[] = []) =>
  snapshot(paperTestbed(), [job('J', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-2'], o), ...extra], {
    now: NOW,
    otherPods: busy({ 'node-1': 3, 'node-2': 8, 'node-3': 10 }),
  });

describe('consolidateSpreadJobs', () => {
  it('moves the remote worker onto the PS node when it has room (a move: relocated scale-in, then scale-out)', () => {
    const plan = schedule('ours', spreadJ(), withToggle);
    expect(moves(plan)).toEqual(['in J Worker:2@node-2 (moved)', 'out J Worker:3@node-1']);
    expect(plan.scaleIn[0]!.forJob).toBe('J');
  });

  it('is off by default', () => {
    expect(moves(schedule('ours', spreadJ()))).toEqual([]);
  });

  it('does nothing while a job waits that could fit some day, for a worker younger than the cool-down, or without a curve', () => {
    // W: a lower class (it cannot preempt J), 6 cpu: no node has 6 cpu free now, an empty one would.
    const W = waiting('W', { priority: -1, ps: { cpu: cpu(1) }, worker: { cpu: cpu(6) }, min: 1, max: 1 });
    expect(moves(schedule('ours', spreadJ({}, [W]), withToggle))).toEqual([]);
    expect(moves(schedule('ours', spreadJ({ createdAt: NOW - 30_000 }), withToggle))).toEqual([]);
    expect(moves(schedule('ours', spreadJ({ curve: false }), withToggle))).toEqual([]);
    // A fixed-size job keeps its workers' names and places.
    expect(moves(schedule('ours', spreadJ({ min: 3, max: 3 }), withToggle))).toEqual([]);
  });

  it('does nothing for a job on no more nodes than its worker count needs', () => {
    // 6 workers need two nodes (5 per node): 4 + 2 stays.
    const snap = snapshot(
      paperTestbed(),
      [
        job(
          'J',
          ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1', 'Worker:4@node-2', 'Worker:5@node-2'],
          { max: 6 },
        ),
      ],
      { now: NOW, otherPods: busy({ 'node-1': 1, 'node-2': 0, 'node-3': 10 }) },
    );
    expect(moves(schedule('ours', snap, withToggle)).filter((m) => m.includes('(moved)'))).toEqual([]);
  });

  it('collapses onto a node without the PS when the PS node has no room (fewest moves)', () => {
    // J: PS and worker 0 on node-1 (full), workers 1 and 2 on node-2 with room for one more.
    const snap = snapshot(paperTestbed(), [job('J', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2', 'Worker:2@node-2'])], {
      now: NOW,
      otherPods: busy({ 'node-1': 7, 'node-2': 4, 'node-3': 10 }),
    });
    expect(moves(schedule('ours', snap, withToggle))).toEqual(['in J Worker:0@node-1 (moved)', 'out J Worker:3@node-2']);
  });

  it('swaps the crosswise remote workers of two jobs that neither could move alone', () => {
    // A: PS and 3 workers on node-1, 1 on node-2; B the mirror image. Both nodes full.
    const snap = snapshot(
      paperTestbed(),
      [
        job('A', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-2'], { max: 4 }),
        job('B', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-2', 'Worker:3@node-1'], { max: 4 }),
      ],
      { now: NOW, otherPods: busy({ 'node-1': 1, 'node-2': 1, 'node-3': 10 }) },
    );
    expect(moves(schedule('ours', snap, withToggle)).sort()).toEqual([
      'in A Worker:3@node-2 (moved)',
      'in B Worker:3@node-1 (moved)',
      'out A Worker:4@node-1',
      'out B Worker:4@node-2',
    ]);
  });

  it('a move keeps the job’s worker count and goes only onto nodes it already uses (random clusters)', () => {
    let moved = 0;
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const plan = schedule('ours', snap, withToggle);
        for (const s of plan.scaleIn) {
          if (s.forJob !== s.job) continue;
          expect(s.relocated).toBe(true);
          moved++;
          const job = snap.jobs.find((j) => j.spec.key === s.job)!;
          const used = new Set(job.replicas.filter((r) => r.type === job.spec.workers!.type).map((r) => r.node));
          const added = plan.scaleOut.find((o) => o.job === s.job)?.add ?? [];
          expect(added.length).toBeGreaterThanOrEqual(s.remove.length);
          for (const r of added.slice(0, s.remove.length)) expect(used.has(r.node)).toBe(true);
        }
      }),
      { numRuns: 300, seed: 20261127 },
    );
    expect(moved).toBeGreaterThan(0);
  });
});
