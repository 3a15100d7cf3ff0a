// The simulator's progress signal (what jobs print, what the core sees), suspension and the
// oracle-only remaining work, on hand-computed cases.
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, Plan } from '../../../../src/scheduler/types.ts';
import { simulate } from '../../../../lab/simulator/engine.ts';
import { JobSignal } from '../../../../lab/simulator/job-signal.ts';
import { ClusterState } from '../../../../lab/simulator/state.ts';
import type { ClusterShape, WorkloadJob } from '../../../../lab/workloads/model.ts';
import { accuracyPointIndex, emulatedAccuracy, syntheticCurve } from '../../../../lab/workloads/progress-curve.ts';
import type { ProgressCurve } from '../../../../lab/workloads/progress-curve.ts';
import { loadScenario } from '../../../../lab/workloads/scenario.ts';

const ONE_NODE: ClusterShape = { nodeCount: 1, allocatable: { cpu: 4000 } };

/** 1-cpu PS and one 1-cpu worker, 10 images/s, `work` images; the curve if given. */
function job(name: string, work: number, curve?: ProgressCurve): WorkloadJob {
  return {
    name,
    submitSeconds: 0,
    ps: { count: 1, requests: { cpu: 1000 } },
    workers: { requests: { cpu: 1000 }, min: 1, max: 1 },
    work,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: 10, remotePenalty: 0, psCapacityImagesPerSecond: 1000 },
    label: name,
    ...(curve === undefined ? {} : { curve }),
  };
}

const EMPTY: Plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };

describe('progress curves', () => {
  it('synthetic: ten evaluations along the work, the emulator’s accuracy curve', () => {
    const c = syntheticCurve(1000);
    expect(c.points.map((p) => p.work)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(c.points[9]!.metric).toBeCloseTo(emulatedAccuracy(1), 12);
    expect(c.higherIsBetter).toBe(true);
    // Final 0.89461; 1% of it is 0.00895. At 0.8 of the work 0.88535 (0.00926 short), at 0.9 0.89111.
    expect(accuracyPointIndex(c)).toBe(8);
  });

  it('Philly: one point per epoch from the measured validation curve, the direction from the curve itself', () => {
    const scenario = loadScenario('philly-1');
    const byApp = new Map<string, WorkloadJob>();
    for (const j of scenario.jobs) byApp.set(j.label.split(' ')[0]!, j);
    const cifar = byApp.get('cifar10')!;
    expect(cifar.curve!.points).toHaveLength(100);
    expect(cifar.curve!.points.at(-1)!.work).toBeCloseTo(cifar.work, 6);
    expect(cifar.curve!.higherIsBetter).toBe(true);
    // deepspeech2 reports a word error rate: lower is better.
    const speech = byApp.get('deepspeech2');
    if (speech !== undefined) expect(speech.curve!.higherIsBetter).toBe(false);
    for (const j of scenario.jobs) {
      const xs = j.curve!.points.map((p) => p.work);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
    }
  });
});

describe('JobSignal', () => {
  const curve: ProgressCurve = {
    name: 'accuracy',
    higherIsBetter: true,
    points: [
      { work: 100, metric: 0.5 },
      { work: 200, metric: 0.8 },
      { work: 300, metric: 0.9 },
      { work: 400, metric: 0.9 },
    ],
  };

  it('prints a point when the work crosses it, stamped at the crossing; time to accuracy is the first within 1% of final', () => {
    const s = new JobSignal(job('a', 400, curve));
    s.advance(0, 150, 0, 10);
    expect(s.accuracyAt).toBeUndefined();
    s.evaluate(15);
    expect(s.view(15)).toEqual({ phase: 'Progressing', since: 15_000 });
    s.advance(150, 320, 15, 10);
    // 300 is reached 15 s after t=15 at 10/s.
    expect(s.accuracyAt).toBe(30);
  });

  it('a job without a curve prints nothing and the core sees no information', () => {
    const s = new JobSignal(job('a', 400));
    s.advance(0, 400, 0, 10);
    s.evaluate(40);
    expect(s.view(40)).toBeUndefined();
    expect(s.accuracyAt).toBeUndefined();
  });

  it('a flat curve turns Converged through the operator’s phase machine; the view goes stale without new lines', () => {
    const points = Array.from({ length: 40 }, (_, i) => ({ work: (i + 1) * 10, metric: i < 5 ? 0.1 * (i + 1) : 0.5 }));
    const s = new JobSignal(job('a', 400, { name: 'accuracy', higherIsBetter: true, points }));
    for (let t = 1; t <= 40; t++) {
      s.advance((t - 1) * 10, t * 10, t - 1, 10);
      s.evaluate(t);
    }
    expect(s.view(40)?.phase).toBe('Converged');
    expect(s.view(40 + 3600)).toBeUndefined();
  });
});

describe('simulator state', () => {
  it('a suspension frees every replica and sends the job back to waiting with its remaining work', () => {
    const state = new ClusterState(ONE_NODE, [job('a', 1000)], false, true);
    const a = state.jobs[0]!;
    a.phase = 'waiting';
    state.apply(
      {
        ...EMPTY,
        admit: [
          {
            job: 'sim/a',
            replicas: [
              { type: 'PS', index: 0, node: 'node-0' },
              { type: 'Worker', index: 0, node: 'node-0' },
            ],
          },
        ],
      },
      0,
    );
    expect(state.allocated()).toEqual({ cpu: 2000 });
    a.remaining = 400;
    state.apply({ ...EMPTY, suspend: [{ job: 'sim/a', forJob: 'sim/b' }] }, 10);
    expect(a.phase).toBe('waiting');
    expect(a.replicas.size).toBe(0);
    expect(a.remaining).toBe(400);
    expect(a.suspensions).toBe(1);
    expect(state.allocated()).toEqual({ cpu: 0 });
    expect(state.pods).toEqual({ created: 2, deleted: 2, succeeded: 0 });
    expect(state.snapshot(10).jobs[0]!.spec.suspendable).toBe(true);
  });

  it('only oracles are told the remaining work', () => {
    const state = new ClusterState(ONE_NODE, [job('a', 1000)]);
    state.jobs[0]!.phase = 'waiting';
    expect(state.snapshot(0).jobs[0]!.oracleRemainingSeconds).toBeUndefined();
    // 1000 images at 10 images/s with its one worker next to its PS.
    expect(state.snapshot(0, true).jobs[0]!.oracleRemainingSeconds).toBe(100);
  });

  it('attained service counts bound worker-seconds, and the core sees it with the phase', () => {
    const seen: ClusterSnapshot[] = [];
    const result = simulate({
      cluster: ONE_NODE,
      jobs: [job('a', 1000, syntheticCurve(1000))],
      schedule: (snap) => {
        seen.push(snap);
        const j = snap.jobs[0];
        if (j?.phase !== 'waiting') return EMPTY;
        return {
          ...EMPTY,
          admit: [
            {
              job: j.spec.key,
              replicas: [
                { type: 'PS', index: 0, node: 'node-0' },
                { type: 'Worker', index: 0, node: 'node-0' },
              ],
            },
          ],
        };
      },
      startupSeconds: 0,
      tickSeconds: 10,
      horizonSeconds: 1000,
    });
    expect(result.jobs[0]!.finished).toBe(100);
    const at50 = seen.find((s) => s.now === 50_000)!.jobs[0]!;
    expect(at50.attainedWorkerSeconds).toBe(50);
    expect(at50.progress?.phase).toBeDefined();
    // The synthetic curve is within 1% of its final value from 0.9 of the work: 90 s.
    expect(result.jobs[0]!.timeToAccuracy).toBe(90);
  });
});
