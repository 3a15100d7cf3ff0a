// Per-job performance-target rules of `ours` (issue 32 item 1): sizing from the declared curve
// (qoe-size.ts), the floor a targeted job keeps against a same-class admission (qoe-protect.ts,
// `qoeKeepTargetSize`), the receivers' need (`qoeSizeFromCurve`) and the growth cap of throughput
// targets while others wait (`qoeCapAtTarget`), on the paper's testbed (3 × 10 cpu).
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { RunningJob } from '../../../src/scheduler/model/job-model.ts';
import { throughputTargetCap } from '../../../src/scheduler/plugins/qoe-cap-at-target/cap.ts';
import { receiverNeed } from '../../../src/scheduler/plugins/qoe-targets/qoe-rebalance.ts';
import { targetMinimum } from '../../../src/scheduler/model/qoe-minimum.ts';
import { predictedRate, requiredRate, workersForTarget } from '../../../src/scheduler/model/qoe-size.ts';
import type { JobState, QoeTarget, StepRate, WorkerGroup } from '../../../src/scheduler/types.ts';
import { cpu, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const NOW = 10 * 3600 * 1000;
const target = (q: Partial<QoeTarget>): QoeTarget => ({ tolerance: 0.1, adjustStep: 0.1, ...q });
const rate = (stepsPerSecond: number, workers: number, step = 0): StepRate => ({
  stepsPerSecond,
  step,
  workers,
  from: NOW - 60_000,
  to: NOW,
});
const group = (o: Partial<WorkerGroup> = {}): WorkerGroup => ({
  type: 'Worker',
  min: 1,
  max: 4,
  requests: { cpu: cpu(2) },
  constraints: {},
  ...o,
});

describe('requiredRate', () => {
  it('a throughput target is its rate; a deadline the steps left over the seconds left', () => {
    expect(requiredRate(target({ stepsPerSecond: 7 }), undefined, NOW)).toBe(7);
    const deadline = { at: NOW + 1000_000, totalSteps: 5000 };
    expect(requiredRate(target({ deadline }), 1000, NOW)).toBeCloseTo(4);
    expect(requiredRate(target({ deadline }), undefined, NOW)).toBeCloseTo(5);
  });
  it('a deadline with every step done needs 0; one that passed, or a metric target, has no rate', () => {
    expect(requiredRate(target({ deadline: { at: NOW + 1000, totalSteps: 10 } }), 10, NOW)).toBe(0);
    expect(requiredRate(target({ deadline: { at: NOW - 1000, totalSteps: 10 } }), 5, NOW)).toBeUndefined();
    expect(requiredRate(target({ metric: { value: 0.9, onReached: 'Stop' } }), 5, NOW)).toBeUndefined();
  });
});

describe('predictedRate', () => {
  const curved = group({ scalingCurve: [2, 4, 5, 5.5] });
  it('reads the declared curve as steps/s before anything is measured', () => {
    expect(predictedRate(curved, undefined, 3)).toBe(5);
  });
  it('scales the curve by the measured rate at the measured worker count', () => {
    // Measured 3 steps/s with 2 workers where the curve says 4: everything runs at 3/4 of the curve.
    expect(predictedRate(curved, rate(3, 2), 3)).toBeCloseTo(3.75);
  });
  it('beyond the end of the curve, its last value', () => {
    expect(predictedRate(group({ max: 6, scalingCurve: [2, 4] }), undefined, 5)).toBe(4);
  });
  it('linear in workers from the measured rate without a curve; unknown without either', () => {
    expect(predictedRate(group(), rate(3, 2), 4)).toBeCloseTo(6);
    expect(predictedRate(group(), undefined, 4)).toBeUndefined();
  });
});

function job(o: { qoe: Partial<QoeTarget>; curve?: number[]; stepRate?: StepRate; min?: number; max?: number }): JobState {
  const w = waiting('J', { min: o.min ?? 1, max: o.max ?? 4, ...(o.curve === undefined ? {} : { scalingCurve: o.curve }) });
  return { ...w, spec: { ...w.spec, qoe: target(o.qoe) }, ...(o.stepRate === undefined ? {} : { stepRate: o.stepRate }) };
}

describe('workersForTarget', () => {
  it('the fewest workers whose predicted rate meets the target, never below the minimum', () => {
    expect(workersForTarget(job({ qoe: { stepsPerSecond: 4.5 }, curve: [2, 4, 5, 5.5] }), NOW)).toBe(3);
    expect(workersForTarget(job({ qoe: { stepsPerSecond: 1 }, curve: [2, 4, 5, 5.5], min: 2 }), NOW)).toBe(2);
  });
  it('undefined when even the maximum falls short, or nothing says how fast the job runs', () => {
    expect(workersForTarget(job({ qoe: { stepsPerSecond: 6 }, curve: [2, 4, 5, 5.5] }), NOW)).toBeUndefined();
    expect(workersForTarget(job({ qoe: { stepsPerSecond: 1 } }), NOW)).toBeUndefined();
  });
  it('a deadline from the last reported step and the measured rate', () => {
    // 3,000 steps left in 1,000 s: 3 steps/s; 1 worker measured 1 step/s, so 3 workers (linear).
    const deadline = { at: NOW + 1000_000, totalSteps: 4000 };
    expect(workersForTarget(job({ qoe: { deadline }, stepRate: rate(1, 1, 1000) }), NOW)).toBe(3);
  });
});

/** The parts of a pass's running job the per-job rules read. */
function runningJob(state: JobState, workers: number, o: { podless?: number } = {}): RunningJob {
  return {
    job: { workers: state.spec.workers, state },
    workers: Array.from({ length: workers }, (_, index) => ({ index, node: 0 })),
    podlessIndices: new Set(Array.from({ length: o.podless ?? 0 }, (_, i) => i)),
  } as unknown as RunningJob;
}

describe('throughputTargetCap (qoeCapAtTarget)', () => {
  it('a throughput target stops growth at the size that meets it, never below the present size', () => {
    const s = job({ qoe: { stepsPerSecond: 4.5 }, curve: [2, 4, 5, 5.5] });
    expect(throughputTargetCap(runningJob(s, 1), 4, NOW)).toBe(3);
    expect(throughputTargetCap(runningJob(s, 4), 4, NOW)).toBe(4);
    expect(throughputTargetCap(runningJob(s, 1), 2, NOW)).toBe(2);
  });
  it('deadlines, jobs without a target and unknown sizes are not capped', () => {
    expect(
      throughputTargetCap(runningJob(job({ qoe: { deadline: { at: NOW + 1e6, totalSteps: 10 } }, curve: [2, 4, 5, 5.5] }), 1), 4, NOW),
    ).toBe(4);
    expect(throughputTargetCap(runningJob(waiting('J'), 1), 4, NOW)).toBe(4);
    expect(throughputTargetCap(runningJob(job({ qoe: { stepsPerSecond: 1 } }), 1), 4, NOW)).toBe(4);
  });
});

describe('receiverNeed', () => {
  const knee = 0.25;
  const flat = [2, 4, 4.4, 4.6]; // the third worker adds 0.4 < 0.25 × 2: the knee is at 2 workers
  const opts = (sizeFromCurve: boolean) => ({ now: NOW, kneeMinMarginalGain: knee, sizeFromCurve });
  it('a Behind job: the curve, scaled by the measured rate, past the knee with sizeFromCurve; linear and knee-capped without', () => {
    // Measured 2.2 steps/s on 1 worker (1.1 × the curve): 3 workers give 4.84 ≥ 4.5.
    const s = job({ qoe: { stepsPerSecond: 4.5 }, curve: flat, stepRate: rate(2.2, 1) });
    const reading = { class: 'Behind' as const, required: 4.5, measured: 2.2, gap: -0.51 };
    expect(receiverNeed(runningJob(s, 1), reading, opts(true))).toBe(2);
    // Linear: ceil(1 × 4.5 / 2.2) − 1 = 2 more, capped at the knee (2 workers): 1 more.
    expect(receiverNeed(runningJob(s, 1), reading, opts(false))).toBe(1);
  });
  it('a deadline job Satisfied below its required rate receives what its curve says, with sizeFromCurve only', () => {
    // 4,400 steps left in 1,000 s: 4.4 steps/s; 2 workers measured 4.0 (within α = 0.1).
    const s = job({ qoe: { deadline: { at: NOW + 1000_000, totalSteps: 5400 } }, curve: flat, stepRate: rate(4, 2, 1000) });
    const reading = { class: 'Satisfied' as const, required: 4.4, measured: 4, gap: -0.09 };
    expect(receiverNeed(runningJob(s, 2), reading, opts(true))).toBe(1);
    expect(receiverNeed(runningJob(s, 2), reading, opts(false))).toBe(0);
  });
  it('unmeasured, Ahead and other Satisfied jobs, and unreachable targets, receive nothing', () => {
    const s = job({ qoe: { stepsPerSecond: 4.3 }, curve: flat });
    expect(receiverNeed(runningJob(s, 1), undefined, opts(true))).toBe(0);
    expect(receiverNeed(runningJob(s, 1), { class: 'Unknown', required: 4.3, measured: undefined, gap: undefined }, opts(true))).toBe(0);
    expect(receiverNeed(runningJob(s, 1), { class: 'Satisfied', required: 4.3, measured: 4.2, gap: -0.02 }, opts(true))).toBe(0);
    expect(receiverNeed(runningJob(s, 1), { class: 'Ahead', required: 4.3, measured: 9, gap: 1 }, opts(true))).toBe(0);
    const unreachable = {
      class: 'Behind' as const,
      required: 4.3,
      measured: 1,
      gap: -0.7,
      unreachable: 'x',
      unreachableReason: 'TooSlowAtMaxWorkers' as const,
    };
    expect(receiverNeed(runningJob(s, 1), unreachable, opts(true))).toBe(0);
  });
});

/**
 * T (a throughput target, measured 10 steps/s on 4 workers of 2 cpu) holds node-1 with its 1 cpu PS;
 * nodes 2 and 3 are full. W waits: a 1 cpu PS and one 1 cpu worker (a smaller share, so it outranks
 * T), and fits node-1 once one of T's workers is gone.
 */
function contested(o: { tTarget: number; wPriority?: number; wWaitedMs?: number }) {
  const t = running('T', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1'], {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(2) },
    min: 1,
    max: 4,
    createdAt: 0,
  });
  const tt: JobState = { ...t, spec: { ...t.spec, qoe: target({ stepsPerSecond: o.tTarget }) }, stepRate: rate(10, 4) };
  const w = waiting('W', {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(1) },
    min: 1,
    max: 1,
    submittedAt: NOW - (o.wWaitedMs ?? 60_000),
    ...(o.wPriority === undefined ? {} : { priority: o.wPriority }),
  });
  const busy = ['node-2', 'node-3'].map((n) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(10) } }));
  return snapshot(paperTestbed(), [tt, w], { now: NOW, otherPods: busy });
}

describe('ours: a job keeps the workers its target needs against a same-class admission (qoeKeepTargetSize)', () => {
  const admitted = (plan: ReturnType<typeof schedule>) => plan.admit.map((a) => a.job);
  it('T needs all 4 workers (8 steps/s at 2.5 per worker): W waits', () => {
    const plan = schedule('ours', contested({ tTarget: 8 }));
    expect(admitted(plan)).toEqual([]);
    expect(plan.scaleIn).toEqual([]);
  });
  it('T needs 3 (6 steps/s): its fourth worker goes to W', () => {
    const plan = schedule('ours', contested({ tTarget: 6 }));
    expect(admitted(plan)).toEqual(['W']);
    expect(plan.scaleIn.map((s) => [s.job, s.remove.length])).toEqual([['T', 1]]);
  });
  it('a higher class or a starving W takes the worker whatever the target; so does ours without the toggle', () => {
    // (qoeTargetAsMinimum off: with it, 4 workers are T's minimum, which nothing scales in below.)
    const floorOnly = resolveSchedulerConfig({ improvements: { qoeTargetAsMinimum: false } });
    expect(admitted(schedule('ours', contested({ tTarget: 8, wPriority: 100 }), floorOnly))).toEqual(['W']);
    expect(admitted(schedule('ours', contested({ tTarget: 8, wWaitedMs: 3600_000 }), floorOnly))).toEqual(['W']);
    expect(admitted(schedule('ours', contested({ tTarget: 8, wWaitedMs: 3600_000 })))).toEqual([]);
    const off = resolveSchedulerConfig({ improvements: { qoeKeepTargetSize: false, qoeTargetAsMinimum: false } });
    expect(admitted(schedule('ours', contested({ tTarget: 8 }), off))).toEqual(['W']);
  });
});

/**
 * N (a throughput target, 1 cpu PS and 1 cpu workers, curve `curve`) waits on the testbed, where Y
 * (a higher class, not elastic) holds 5 or 6 cpu of every node; X (a 9 cpu worker) waits too and
 * cannot be placed until Y ends, so jobs still wait after admissions and growth stops at the knee.
 */
function sizing(curve: number[], stepsPerSecond: number) {
  const n = waiting('N', { ps: { cpu: cpu(1) }, worker: { cpu: cpu(1) }, min: 1, max: 4, scalingCurve: curve, submittedAt: NOW - 1000 });
  const x = waiting('X', { ps: { cpu: cpu(1) }, worker: { cpu: cpu(9) }, min: 1, max: 1, submittedAt: NOW - 2000 });
  const y = running('Y', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2', 'Worker:2@node-3'], {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(5) },
    min: 3,
    max: 3,
    priority: 1000,
    createdAt: 0,
  });
  return snapshot(paperTestbed(), [{ ...n, spec: { ...n.spec, qoe: target({ stepsPerSecond }) } }, x, y], { now: NOW });
}

const workersOf = (plan: ReturnType<typeof schedule>, key: string): number =>
  (plan.admit.find((a) => a.job === key)?.replicas.filter((r) => r.type === 'Worker').length ?? 0) +
  plan.scaleOut.filter((s) => s.job === key).reduce((k, s) => k + s.add.length, 0);

describe('ours: a targeted job is sized for its target in the pass that admits it', () => {
  it('qoeTargetAsMinimum: admitted at the size its curve says, past the knee (curve 2, 4, 4.4, 4.6; target 4.3: 3 workers)', () => {
    expect(workersOf(schedule('ours', sizing([2, 4, 4.4, 4.6], 4.3)), 'N')).toBe(3);
    // Without it: admitted at its minimum, and grown to the knee (nothing measured yet).
    const off = resolveSchedulerConfig({ improvements: { qoeTargetAsMinimum: false } });
    expect(workersOf(schedule('ours', sizing([2, 4, 4.4, 4.6], 4.3), off), 'N')).toBe(2);
  });
  it('qoeCapAtTarget: no further than the target needs while others wait (linear curve, target 5: 3 workers)', () => {
    expect(workersOf(schedule('ours', sizing([2, 4, 6, 8], 5)), 'N')).toBe(3);
    const off = resolveSchedulerConfig({ improvements: { qoeCapAtTarget: false } });
    expect(workersOf(schedule('ours', sizing([2, 4, 6, 8], 5), off), 'N')).toBe(4);
  });
});

describe('targetMinimum (qoeTargetAsMinimum)', () => {
  it('a throughput target: the size it needs; a deadline, or an unknown size: none', () => {
    expect(targetMinimum(job({ qoe: { stepsPerSecond: 4.5 }, curve: [2, 4, 5, 5.5] }), NOW)).toBe(3);
    expect(targetMinimum(job({ qoe: { deadline: { at: NOW + 1000_000, totalSteps: 4500 } }, curve: [2, 4, 5, 5.5] }), NOW)).toBeUndefined();
    expect(targetMinimum(job({ qoe: { stepsPerSecond: 4.5 } }), NOW)).toBeUndefined();
  });

  it('ours admits such a job at that size or not at all: room for 2 of the 3 workers it needs, it waits', () => {
    // Y leaves 4, 5 and 5 cpu; N needs a 1 cpu PS and 3 workers of 2 cpu (curve 2, 4, 6, 8; target 5).
    const s = sizing([2, 4, 6, 8], 5);
    const big = {
      ...s,
      jobs: s.jobs.map((j) =>
        j.spec.key === 'N' ? { ...j, spec: { ...j.spec, workers: { ...j.spec.workers!, requests: { cpu: cpu(2) } } } } : j,
      ),
      otherPods: ['node-2', 'node-3'].map((nd) => ({ key: `other/${nd}`, node: nd, requests: { cpu: cpu(4) } })),
    };
    expect(workersOf(schedule('ours', big), 'N')).toBe(0);
    const off = resolveSchedulerConfig({ improvements: { qoeTargetAsMinimum: false } });
    expect(workersOf(schedule('ours', big, off), 'N')).toBeGreaterThan(0);
  });
});

describe('qoeTargetAsMinimum: a target size that would never fit the cluster', () => {
  it('leaves the declared minimum: the job is admitted, not kept waiting for ever', () => {
    // 4 cpu workers: at most 2 per 10 cpu node, 6 in the cluster; the target (7 steps/s, 1 per worker) needs 7.
    const n = waiting('N', { ps: { cpu: cpu(1) }, worker: { cpu: cpu(4) }, min: 1, max: 8, scalingCurve: [1, 2, 3, 4, 5, 6, 7, 8] });
    const plan = schedule(
      'ours',
      snapshot(paperTestbed(), [{ ...n, spec: { ...n.spec, qoe: target({ stepsPerSecond: 7 }) } }], { now: NOW }),
    );
    expect(plan.admit.map((a) => a.job)).toEqual(['N']);
    // A target of 6 steps/s fits (6 workers): admitted at that size.
    const six = schedule(
      'ours',
      snapshot(paperTestbed(), [{ ...n, spec: { ...n.spec, qoe: target({ stepsPerSecond: 6 }) } }], { now: NOW }),
    );
    expect(six.admit[0]!.replicas.filter((r) => r.type === 'Worker')).toHaveLength(6);
  });
});
