// Performance targets (DQoES): the classification of qoe.ts and `ours`' moves of workers from jobs
// ahead of their targets to jobs behind theirs (qoe-rebalance.ts), with hand-computed expectations
// on the paper's testbed (3 × 10 cpu; a 1 cpu PS and 2 cpu workers).
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { readQoe, workersToMeet, workersToSpare } from '../../../src/scheduler/model/qoe.ts';
import type { JobState, QoeTarget, StepRate } from '../../../src/scheduler/types.ts';
import { cpu, describeReplicas, paperTestbed, running, snapshot } from './helpers/builders.ts';

const NOW = 10 * 3600 * 1000;
const PS = { cpu: cpu(1) };
const TWO = { cpu: cpu(2) };
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));

function withTarget(job: JobState, qoe: Partial<QoeTarget>, rate?: Partial<StepRate>): JobState {
  const workers = job.replicas.filter((r) => r.type === 'Worker').length;
  return {
    ...job,
    spec: { ...job.spec, qoe: { tolerance: 0.1, adjustStep: 0.1, ...qoe } },
    ...(rate === undefined ? {} : { stepRate: { stepsPerSecond: 0, step: 0, workers, from: NOW - 60_000, to: NOW, ...rate } }),
  };
}

/** PS and `n` workers of job `key` on `node`. */
function onNode(key: string, node: string, n: number, o: { priority?: number; max?: number } = {}): JobState {
  const replicas = [`PS:0@${node}`, ...Array.from({ length: n }, (_, i) => `Worker:${i}@${node}`)];
  return running(key, replicas, {
    ps: PS,
    worker: TWO,
    min: 1,
    max: o.max ?? 8,
    createdAt: 0,
    ...(o.priority === undefined ? {} : { priority: o.priority }),
  });
}

describe('readQoe (DQoES Algorithm 1 classes, sign flipped for rates)', () => {
  const job = onNode('J', 'node-1', 4);
  it('ahead, satisfied and behind around ±α of a throughput target', () => {
    const at = (measured: number) => readQoe(withTarget(job, { stepsPerSecond: 10 }, { stepsPerSecond: measured }), NOW)!;
    expect(at(11.5)).toMatchObject({ class: 'Ahead', required: 10, measured: 11.5 });
    expect(at(11.5).gap).toBeCloseTo(0.15);
    expect(at(10.9).class).toBe('Satisfied');
    expect(at(9.1).class).toBe('Satisfied');
    expect(at(8.5).class).toBe('Behind');
  });

  it('a rate measured with another worker count is unknown, not read', () => {
    expect(readQoe(withTarget(job, { stepsPerSecond: 10 }, { stepsPerSecond: 20, workers: 3 }), NOW)!.class).toBe('Unknown');
    expect(readQoe(withTarget(job, { stepsPerSecond: 10 }), NOW)!.class).toBe('Unknown');
  });

  it('jobs without a target, and waiting jobs, have no reading', () => {
    expect(readQoe(job, NOW)).toBeUndefined();
    expect(readQoe({ ...withTarget(job, { stepsPerSecond: 10 }), phase: 'waiting' }, NOW)).toBeUndefined();
  });

  it('a deadline is the rate the steps still to go need in the time left', () => {
    // 36,000 of 72,000 steps done with one hour left: 10 steps/s needed.
    const deadline = { at: NOW + 3600_000, totalSteps: 72_000 };
    const r = readQoe(withTarget(job, { deadline }, { stepsPerSecond: 8, step: 36_000 }), NOW)!;
    expect(r.required).toBeCloseTo(10);
    expect(r.class).toBe('Behind');
    expect(readQoe(withTarget(job, { deadline }, { stepsPerSecond: 8, step: 72_000 }), NOW)!.class).toBe('Satisfied');
  });

  it('a deadline passed with steps to go is behind and unreachable', () => {
    const deadline = { at: NOW - 1000, totalSteps: 72_000 };
    const r = readQoe(withTarget(job, { deadline }, { stepsPerSecond: 8, step: 70_000 }), NOW)!;
    expect(r.class).toBe('Behind');
    expect(r.unreachable).toMatch(/deadline passed with 2000 of 72000 steps to go/);
  });

  it('a target that even the maximum workers cannot reach at the measured per-worker rate is unreachable', () => {
    // 4 workers run 4 steps/s; 8 workers would run at most 8, the target is 10.
    const small = onNode('J', 'node-1', 4, { max: 8 });
    expect(readQoe(withTarget(small, { stepsPerSecond: 10 }, { stepsPerSecond: 4 }), NOW)!.unreachable).toMatch(/at most 8 steps\/s/);
    expect(readQoe(withTarget(small, { stepsPerSecond: 10 }, { stepsPerSecond: 6 }), NOW)!.unreachable).toBeUndefined();
    const atMax = onNode('J', 'node-1', 4, { max: 4 });
    expect(readQoe(withTarget(atMax, { stepsPerSecond: 10 }, { stepsPerSecond: 6 }), NOW)!.unreachable).toMatch(
      /at its maximum of 4 workers/,
    );
  });

  it('workers to meet and to spare assume linear scaling, never below the minimum', () => {
    const behind = { class: 'Behind' as const, required: 20, measured: 10, gap: -0.5 };
    expect(workersToMeet(behind, 4)).toBe(4);
    const ahead = { class: 'Ahead' as const, required: 10, measured: 20, gap: 1 };
    expect(workersToSpare(ahead, 4, 1)).toBe(2);
    expect(workersToSpare(ahead, 4, 3)).toBe(1);
  });
});

/**
 * A (ahead: needs 10, runs 20 steps/s) holds node-1 with its PS and 4 workers, B (behind: needs 20,
 * runs 10) node-2 likewise; node-3 is taken by other pods, and 1 cpu is left on nodes 1 and 2: no
 * idle room for a 2 cpu worker.
 */
function fullCluster(o: { aStep?: number; aPriority?: number; bTarget?: number; idle3?: number } = {}) {
  return snapshot(
    paperTestbed(),
    [
      withTarget(
        onNode('A', 'node-1', 4, o.aPriority === undefined ? {} : { priority: o.aPriority }),
        { stepsPerSecond: 10, adjustStep: o.aStep ?? 0.1 },
        { stepsPerSecond: 20 },
      ),
      withTarget(onNode('B', 'node-2', 4), { stepsPerSecond: o.bTarget ?? 20 }, { stepsPerSecond: 10 }),
    ],
    { now: NOW, otherPods: busy({ 'node-3': 10 - (o.idle3 ?? 0) }) },
  );
}

describe('ours: workers move from ahead to behind (qoeTargets)', () => {
  it('the behind job takes one worker of the ahead job (β·W_G rounds to at least one), on the freed node', () => {
    const plan = schedule('ours', fullCluster());
    expect(plan.scaleIn).toEqual([
      { job: 'A', remove: [{ type: 'Worker', index: 3, node: 'node-1', createdAt: 0 }], forJob: 'B', toMeetTarget: true },
    ]);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([['B', ['Worker:4@node-1']]]);
  });

  it('a larger step β moves more, but never below what keeps the donor at its own target', () => {
    // β = 0.5: cut = round(0.5 · 4 · 1) = 2; linear scaling keeps A at 10 steps/s with 2 workers.
    expect(schedule('ours', fullCluster({ aStep: 0.5 })).scaleIn[0]!.remove).toHaveLength(2);
    // β = 1: cut 4, but A must keep 2 workers.
    expect(schedule('ours', fullCluster({ aStep: 1 })).scaleIn[0]!.remove).toHaveLength(2);
  });

  it('idle capacity comes first: with room for all four on node-3, nothing is taken from the ahead job', () => {
    const plan = schedule('ours', fullCluster({ idle3: 8 }));
    expect(plan.scaleIn).toEqual([]);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([
      ['B', ['Worker:4@node-3', 'Worker:5@node-3', 'Worker:6@node-3', 'Worker:7@node-3']],
    ]);
  });

  it('with room for two, the rest of the need comes from the ahead job', () => {
    const plan = schedule('ours', fullCluster({ idle3: 4 }));
    expect(plan.scaleIn.map((s) => [s.job, describeReplicas(s.remove)])).toEqual([['A', ['Worker:3@node-1']]]);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([
      ['B', ['Worker:4@node-3', 'Worker:5@node-3', 'Worker:6@node-1']],
    ]);
  });

  it('a higher priority class never gives workers to a lower class target', () => {
    const plan = schedule('ours', fullCluster({ aPriority: 1000 }));
    expect(plan.scaleIn).toEqual([]);
    expect(plan.scaleOut).toEqual([]);
  });

  it('an unreachable target is not chased', () => {
    // B runs 10 steps/s on 4 workers: 8 workers give at most 20, below 90% of 40.
    const plan = schedule('ours', fullCluster({ bTarget: 40 }));
    expect(plan.scaleIn).toEqual([]);
    expect(plan.scaleOut).toEqual([]);
  });

  it('kod2 and ours without the toggle ignore targets', () => {
    expect(schedule('kod2', fullCluster()).scaleIn).toEqual([]);
    const off = resolveSchedulerConfig({ improvements: { qoeTargets: false } });
    expect(schedule('ours', fullCluster(), off).scaleIn).toEqual([]);
  });

  it('young workers of the donor stay (cool-down)', () => {
    const s = fullCluster();
    const young = {
      ...s,
      jobs: s.jobs.map((j) => (j.spec.key === 'A' ? { ...j, replicas: j.replicas.map((r) => ({ ...r, createdAt: NOW - 1000 })) } : j)),
    };
    expect(schedule('ours', young).scaleIn).toEqual([]);
  });
});

describe('ours: a job whose metric reached its target shrinks to its minimum (onTargetMetric Shrink)', () => {
  const reached = (reachedTarget: boolean): JobState => {
    const j = onNode('M', 'node-1', 4);
    return {
      ...j,
      spec: { ...j.spec, qoe: { tolerance: 0.1, adjustStep: 0.1, metric: { value: 0.9, onReached: 'Shrink' } } },
      progress: { phase: 'Progressing', since: 0, ...(reachedTarget ? { targetReached: true } : {}) },
    };
  };

  it('gives back every worker above the minimum, and does not grow again', () => {
    const plan = schedule('ours', snapshot(paperTestbed(), [reached(true)], { now: NOW }));
    expect(plan.scaleIn.map((s) => [s.job, s.forJob, describeReplicas(s.remove)])).toEqual([
      ['M', 'M', ['Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1']],
    ]);
    expect(plan.scaleOut).toEqual([]);
  });

  it('not before the target is reached, and not under kod2', () => {
    expect(schedule('ours', snapshot(paperTestbed(), [reached(false)], { now: NOW })).scaleIn).toEqual([]);
    expect(schedule('kod2', snapshot(paperTestbed(), [reached(true)], { now: NOW })).scaleIn).toEqual([]);
  });

  it('a shrunk job (at its minimum) is not scaled out into idle capacity', () => {
    const j = reached(true);
    const atMin = { ...j, replicas: j.replicas.filter((r) => r.type !== 'Worker' || r.index === 0) };
    const plan = schedule('ours', snapshot(paperTestbed(), [atMin], { now: NOW }));
    expect(plan.scaleOut).toEqual([]);
    expect(plan.scaleIn).toEqual([]);
  });
});
