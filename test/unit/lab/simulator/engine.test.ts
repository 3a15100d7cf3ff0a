import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot, Plan } from '../../../../src/scheduler/types.ts';
import type { SchedulePass } from '../../../../lab/simulator/engine.ts';
import { simulate } from '../../../../lab/simulator/engine.ts';
import { summarize } from '../../../../lab/simulator/figures.ts';
import { lowerBounds } from '../../../../lab/simulator/bounds.ts';
import { PlanViolation } from '../../../../lab/simulator/state.ts';
import type { ClusterShape, WorkloadJob } from '../../../../lab/workloads/model.ts';
import { corePass } from '../../../../lab/simulator/core.ts';
import { runScenario } from '../../../../lab/simulator/run.ts';
import { loadScenario } from '../../../../lab/workloads/scenario.ts';
import { toyFifoPass } from './toy-policy.ts';

const ONE_NODE: ClusterShape = { nodeCount: 1, allocatable: { cpu: 4000 } };

/** 1-cpu PS and workers, 10 images/s per worker, no remote penalty, PS never saturates. */
function job(name: string, submitSeconds: number, work: number, max = 2): WorkloadJob {
  return {
    name,
    submitSeconds,
    ps: { count: 1, requests: { cpu: 1000 } },
    workers: { requests: { cpu: 1000 }, min: 1, max },
    work,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: 10, remotePenalty: 0, psCapacityImagesPerSecond: 1000 },
    label: name,
  };
}

const EMPTY: Plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };
/** Job a admitted with its PS and one worker on node-0. */
const ADMIT_A: Plan = {
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
};

describe('event loop on a hand-computed scenario', () => {
  // A (t=0, 1000 images) is admitted with PS + 2 workers = 3 of 4 cpu; ready at 5 s (start-up),
  // 20 img/s → done at 55. B (t=10, 500 images) needs 2 cpu, only 1 is free: it waits until 55, is
  // admitted at full size, ready at 60, 20 img/s → done at 85.
  const result = simulate({
    cluster: ONE_NODE,
    jobs: [job('a', 0, 1000), job('b', 10, 500)],
    schedule: toyFifoPass,
    startupSeconds: 5,
    tickSeconds: 100,
    horizonSeconds: 1000,
  });

  it('gives exact JCTs and waits', () => {
    expect(result.jobs.map((j) => [j.name, j.started, j.finished, j.jct, j.waited])).toEqual([
      ['a', 0, 55, 55, 0],
      ['b', 55, 85, 75, 45],
    ]);
    // Progress starts once the replicas are through their 5 s start-up.
    expect(result.jobs.map((j) => j.waitedToProgress)).toEqual([5, 50]);
    expect(result.jobs.map((j) => [j.workersMin, j.workersMax])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    expect(result.pods).toEqual({ created: 6, deleted: 0, succeeded: 6 });
    expect(result.end).toBe(85);
  });

  it('integrates allocated and useful shares over time', () => {
    const bounds = lowerBounds([job('a', 0, 1000), job('b', 10, 500)], ONE_NODE, 5);
    const summary = summarize(result, bounds);
    // 3 of 4 cpu allocated throughout [0, 85].
    expect(summary.utilisation.allocated.cpu).toBeCloseTo(0.75, 12);
    // Useful while a job progresses: a over [5, 55], b over [60, 85] → 3 cpu × 75 s / (4 × 85).
    expect(summary.utilisation.useful.cpu).toBeCloseTo((3 * 75) / (4 * 85), 12);
    expect(summary.makespan).toBe(85);
    expect(summary.jct).toMatchObject({ mean: 65, p50: 55, max: 75 });
    expect(summary.waiting).toEqual({ mean: 22.5, max: 45 });
    // Ideal: 5 s start-up + work / 20 img/s → 55 and 30; mean 42.5.
    expect(bounds.idealJct).toEqual({ a: 55, b: 30 });
    expect(summary.toLowerBound.meanJct).toBeCloseTo(65 / 42.5, 12);
    // b waits 45 s on average-queue terms: one job waiting over [10, 55] of [0, 85].
    expect(summary.meanQueue.waitingJobs).toBeCloseTo(45 / 85, 12);
  });
});

/** Plays a fixed plan the first time the clock reaches each listed time. */
function scripted(steps: ReadonlyMap<number, Plan>): SchedulePass {
  const played = new Set<number>();
  return (snapshot: ClusterSnapshot) => {
    const t = snapshot.now / 1000;
    const plan = steps.get(t);
    if (plan === undefined || played.has(t)) return EMPTY;
    played.add(t);
    return plan;
  };
}

describe('applying scale-out, scale-in and late binding', () => {
  it('credits progress per segment and counts every pod', () => {
    const steps = new Map<number, Plan>([
      [0, ADMIT_A],
      [20, { ...EMPTY, scaleOut: [{ job: 'sim/a', add: [{ type: 'Worker', index: 1, node: 'node-0' }] }] }],
      [40, { ...EMPTY, scaleIn: [{ job: 'sim/a', remove: [{ type: 'Worker', index: 1 }], forJob: 'sim/x' }] }],
    ]);
    const result = simulate({
      cluster: ONE_NODE,
      jobs: [job('a', 0, 1000)],
      schedule: scripted(steps),
      startupSeconds: 0,
      tickSeconds: 10,
      horizonSeconds: 1000,
    });
    // 10 img/s for 20 s, 20 img/s for 20 s (600 done), then 10 img/s for the last 400 → 80.
    const a = result.jobs[0]!;
    expect(a.finished).toBe(80);
    expect([a.workersMin, a.workersMax, a.preemptedWorkers, a.scaleOuts]).toEqual([1, 2, 1, 1]);
    expect(result.pods).toEqual({ created: 3, deleted: 1, succeeded: 2 });
  });

  it('starts a job only when its PS is bound, and counts its pending pods', () => {
    // tf-operator style: all pods created at once, the worker bound at 0, the PS only at 30.
    const steps = new Map<number, Plan>([
      [
        0,
        {
          ...EMPTY,
          admit: [
            {
              job: 'sim/a',
              replicas: [
                { type: 'PS', index: 0 },
                { type: 'Worker', index: 0, node: 'node-0' },
              ],
            },
          ],
        },
      ],
      [30, { ...EMPTY, bind: [{ job: 'sim/a', replica: { type: 'PS', index: 0, node: 'node-0' } }] }],
    ]);
    const result = simulate({
      cluster: ONE_NODE,
      jobs: [job('a', 0, 100, 1)],
      schedule: scripted(steps),
      startupSeconds: 0,
      tickSeconds: 10,
      horizonSeconds: 1000,
    });
    expect(result.jobs[0]).toMatchObject({ started: 0, finished: 40, waited: 0, waitedToProgress: 30 });
    expect(result.timeline[0]).toMatchObject({ t: 0, pendingPods: 1, runningJobs: 1 });
  });

  it('reports a job still unfinished at the horizon and counts it there', () => {
    const jobs = [job('a', 0, 100_000)];
    const result = simulate({ cluster: ONE_NODE, jobs, schedule: toyFifoPass, startupSeconds: 0, tickSeconds: 10, horizonSeconds: 100 });
    const summary = summarize(result, lowerBounds(jobs, ONE_NODE, 0));
    expect(result.jobs[0]).toMatchObject({ finished: null, jct: null, started: 0 });
    expect(summary).toMatchObject({ unfinished: 1, makespan: null, jct: null });
    expect(summary.jctInclUnfinished?.mean).toBe(100);
    expect(result.end).toBe(100);
  });
});

describe('refusing impossible plans', () => {
  it('throws when a plan overcommits a node', () => {
    const steps = new Map<number, Plan>([
      [
        0,
        {
          ...EMPTY,
          admit: [
            {
              job: 'sim/a',
              replicas: [
                { type: 'PS', index: 0, node: 'node-0' },
                { type: 'Worker', index: 0, node: 'node-0' },
                { type: 'Worker', index: 1, node: 'node-0' },
                { type: 'Worker', index: 2, node: 'node-0' },
                { type: 'Worker', index: 3, node: 'node-0' },
              ],
            },
          ],
        },
      ],
    ]);
    expect(() =>
      simulate({
        cluster: ONE_NODE,
        jobs: [job('a', 0, 10, 4)],
        schedule: scripted(steps),
        startupSeconds: 0,
        tickSeconds: 10,
        horizonSeconds: 100,
      }),
    ).toThrow(PlanViolation);
  });

  it('throws when a scale-in goes below the minimum', () => {
    const steps = new Map<number, Plan>([
      [0, ADMIT_A],
      [10, { ...EMPTY, scaleIn: [{ job: 'sim/a', remove: [{ type: 'Worker', index: 0 }], forJob: 'sim/b' }] }],
    ]);
    expect(() =>
      simulate({
        cluster: ONE_NODE,
        jobs: [job('a', 0, 1000)],
        schedule: scripted(steps),
        startupSeconds: 0,
        tickSeconds: 10,
        horizonSeconds: 1000,
      }),
    ).toThrow(/below its minimum/);
  });

  it('accepts a worker moved at the minimum (relocated: given back by the same plan), and only with its replacement', () => {
    const move: Plan['scaleIn'][number] = { job: 'sim/a', remove: [{ type: 'Worker', index: 0 }], forJob: 'sim/b', relocated: true };
    const run = (second: Plan) =>
      simulate({
        cluster: ONE_NODE,
        jobs: [job('a', 0, 1000)],
        schedule: scripted(
          new Map([
            [0, ADMIT_A],
            [10, second],
          ]),
        ),
        startupSeconds: 0,
        tickSeconds: 10,
        horizonSeconds: 1000,
      });
    const moved = run({ ...EMPTY, scaleIn: [move], scaleOut: [{ job: 'sim/a', add: [{ type: 'Worker', index: 1, node: 'node-0' }] }] });
    expect(moved.jobs[0]).toMatchObject({ preemptedWorkers: 1, scaleOuts: 1 });
    expect(() => run({ ...EMPTY, scaleIn: [move] })).toThrow(/relocation leaves sim\/a with 0 workers, below its minimum/);
  });
});

describe('with the real scheduling core', () => {
  it("runs every policy on kod2-paper-b64 to completion, never beating a job's ideal JCT", () => {
    const scenario = loadScenario('kod2-paper-b64');
    const run = runScenario(scenario, { policies: ['tf-operator', 'gang-fifo', 'kod2', 'ours'], passFor: corePass });
    for (const { policy, result, summary } of run.runs) {
      expect({ policy, unfinished: summary.unfinished, unconverged: result.unconvergedEvents }).toEqual({
        policy,
        unfinished: 0,
        unconverged: 0,
      });
      for (const job of result.jobs) expect(job.jct!).toBeGreaterThanOrEqual(run.bounds.idealJct[job.name]! - 1e-6);
      expect(summary.makespan!).toBeGreaterThanOrEqual(run.bounds.makespan - 1e-6);
      expect(summary.jobsFasterThanIdeal).toBe(0);
    }
    // Only the elastic policies scale; tf-operator creates every pod at submission.
    const byPolicy = new Map(run.runs.map((r) => [r.policy, r.summary]));
    expect(byPolicy.get('tf-operator')!.scaleOuts).toBe(0);
    expect(byPolicy.get('gang-fifo')!.preemptedWorkers).toBe(0);
    expect(byPolicy.get('kod2')!.scaleOuts).toBeGreaterThan(0);
  });
});
