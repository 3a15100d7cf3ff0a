// Performance targets in the simulator: targets drawn for a scenario, and `ours` moving workers from
// a job ahead of its target to one behind it on a hand-built cluster where kod2 leaves the second
// job short (same engine and core as every other run).
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/scheduler/index.ts';
import type { QoeTarget } from '../../../../src/scheduler/types.ts';
import { simulate } from '../../../../lab/simulator/engine.ts';
import { summarize } from '../../../../lab/simulator/figures.ts';
import { lowerBounds } from '../../../../lab/simulator/bounds.ts';
import type { ClusterShape, WorkloadJob } from '../../../../lab/workloads/model.ts';
import { fewestNodesRate } from '../../../../lab/workloads/ideal.ts';
import { loadScenario } from '../../../../lab/workloads/scenario.ts';

/** Two nodes of 10 cpu: a PS (1 cpu) and four 2-cpu workers fill one but for 1 cpu. */
const CLUSTER: ClusterShape = { nodeCount: 2, allocatable: { cpu: 10_000 } };
const target = (stepsPerSecond: number): QoeTarget => ({ stepsPerSecond, tolerance: 0.1, adjustStep: 0.1 });

/** 100 images/s per worker, linear (no remote penalty, the PS never saturates). */
function job(name: string, submitSeconds: number, qoe?: QoeTarget): WorkloadJob {
  return {
    name,
    submitSeconds,
    ps: { count: 1, requests: { cpu: 1000 } },
    workers: { requests: { cpu: 2000 }, min: 1, max: 6 },
    work: 600_000,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: 100, remotePenalty: 0, psCapacityImagesPerSecond: 100_000 },
    label: name,
    ...(qoe === undefined ? {} : { qoe }),
  };
}

// A (needs 250/s: 3 workers) arrives first and grows to 6 workers over both nodes; B (needs 450/s:
// 5 workers) arrives next and finds room for its PS and 2 workers only.
const jobs = [job('a', 0, target(250)), job('b', 100, target(450))];
const run = (policy: 'kod2' | 'ours') =>
  simulate({
    cluster: CLUSTER,
    jobs,
    schedule: (s) => schedule(policy, s),
    startupSeconds: 10,
    tickSeconds: 10,
    horizonSeconds: 20_000,
  });

describe('performance targets in the simulator', () => {
  it('ours gives the behind job workers of the ahead one, which still meets its own target; kod2 does not', () => {
    const ours = run('ours');
    const kod2 = run('kod2');
    const b = (r: ReturnType<typeof run>) => r.jobs.find((j) => j.name === 'b')!.qoe!;
    const a = (r: ReturnType<typeof run>) => r.jobs.find((j) => j.name === 'a')!.qoe!;
    expect(b(ours).met).toBe(true);
    expect(b(kod2).met).toBe(false);
    expect(a(ours).met).toBe(true);
    expect(b(ours).metSeconds / b(ours).runningSeconds).toBeGreaterThan(0.7);
    expect(b(kod2).metSeconds / b(kod2).runningSeconds).toBeLessThan(0.5);
    // Moves, not idle growth: A gave workers up.
    expect(ours.jobs.find((j) => j.name === 'a')!.preemptedWorkers).toBeGreaterThan(0);
    const summary = summarize(ours, lowerBounds(jobs, CLUSTER, 10));
    expect(summary.qoe).toMatchObject({ targetedJobs: 2, throughputJobs: 2, throughputJobsMet: 2, jobsMetFraction: 1 });
  });

  it('a scenario draws the same targets for the same seed, within the stated ranges', () => {
    const first = loadScenario('qoe-mixed', 1);
    const again = loadScenario('qoe-mixed', 1);
    expect(again.jobs.map((j) => j.qoe)).toEqual(first.jobs.map((j) => j.qoe));
    const targeted = first.jobs.filter((j) => j.qoe !== undefined);
    expect(targeted.length / first.jobs.length).toBeGreaterThan(0.35);
    expect(targeted.length / first.jobs.length).toBeLessThan(0.65);
    for (const j of targeted) {
      const q = j.qoe!;
      expect(q.tolerance).toBe(0.1);
      if (q.stepsPerSecond !== undefined) {
        const ratio = q.stepsPerSecond / fewestNodesRate(j, j.workers.max, first.cluster);
        expect(ratio).toBeGreaterThanOrEqual(0.3);
        expect(ratio).toBeLessThanOrEqual(0.8);
      } else {
        expect(q.deadline!.totalSteps).toBe(j.work);
        expect(q.deadline!.at).toBeGreaterThan(j.submitSeconds * 1000);
      }
    }
    expect(targeted.some((j) => j.qoe!.deadline !== undefined) && targeted.some((j) => j.qoe!.stepsPerSecond !== undefined)).toBe(true);
  });
});
