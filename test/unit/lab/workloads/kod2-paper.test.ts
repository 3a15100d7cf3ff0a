import { describe, expect, it } from 'vitest';
import type { Kod2PaperThroughput, WorkloadJob } from '../../../../lab/workloads/model.ts';
import { loadScenario } from '../../../../lab/workloads/scenario.ts';
import { progressRate } from '../../../../lab/workloads/throughput.ts';
import { fewestNodesPlacement, idealRuntimeSeconds } from '../../../../lab/workloads/ideal.ts';

const BATCHES = [8, 16, 32, 64, 128] as const;

function jobsAt(batch: number): WorkloadJob[] {
  return [...loadScenario(`kod2-paper-b${batch}`).jobs];
}

/** The first job of each model (they cycle, so the first four are all different). */
function byModel(batch: number): Map<string, WorkloadJob> {
  return new Map(
    jobsAt(batch)
      .slice(0, 4)
      .map((j) => [j.label.split(' ')[0]!, j]),
  );
}

function local(workers: number): { ps: string[]; workers: string[] } {
  return { ps: ['n0'], workers: Array.from({ length: workers }, () => 'n0') };
}

function throughput(job: WorkloadJob): Kod2PaperThroughput {
  if (job.throughput.kind !== 'kod2-paper') throw new Error('not a kod2-paper job');
  return job.throughput;
}

describe('kod2-paper workload', () => {
  it('submits ten jobs 30 s apart, cycling the four models, 1 PS and 1..4 workers', () => {
    const jobs = jobsAt(32);
    expect(jobs.map((j) => j.submitSeconds)).toEqual([0, 30, 60, 90, 120, 150, 180, 210, 240, 270]);
    expect(jobs.map((j) => j.label.split(' ')[0])).toEqual([
      'cnn-rand',
      'vgg-16',
      'resnet-50',
      'resnext-110',
      'cnn-rand',
      'vgg-16',
      'resnet-50',
      'resnext-110',
      'cnn-rand',
      'vgg-16',
    ]);
    for (const job of jobs) {
      expect(job.ps.count).toBe(1);
      expect(job.workers.min).toBe(1);
      expect(job.workers.max).toBe(4);
    }
    // epochs × 50,000 CIFAR-10 images: cnn-rand trains 20 epochs, vgg-16 2 (scenario constants).
    expect(jobs[0]!.work).toBe(1_000_000);
    expect(jobs[1]!.work).toBe(100_000);
  });

  it('contends the 3 × 10 cpu cluster even at every job minimum', () => {
    const minimumCpu = jobsAt(32).reduce((sum, j) => sum + (j.ps.requests.cpu ?? 0) + (j.workers.requests.cpu ?? 0), 0);
    expect(minimumCpu).toBeGreaterThan(30_000);
  });

  it('trains faster with more co-located workers until the PS saturates, never slower', () => {
    for (const batch of BATCHES) {
      for (const job of byModel(batch).values()) {
        const model = throughput(job);
        const rates = [1, 2, 3, 4].map((w) => progressRate(job, local(w)));
        for (let w = 1; w < 4; w++) {
          const saturated = (w + 1) * model.workerImagesPerSecond > model.psCapacityImagesPerSecond;
          if (saturated) expect(rates[w]).toBe(model.psCapacityImagesPerSecond);
          else expect(rates[w]).toBeGreaterThan(rates[w - 1]!);
          expect(rates[w]).toBeGreaterThanOrEqual(rates[w - 1]!);
        }
      }
    }
  });

  it('at batch 128 every model scales to four workers (paper Fig. 4 shape)', () => {
    for (const job of byModel(128).values()) {
      expect(progressRate(job, local(4))).toBeCloseTo(4 * throughput(job).workerImagesPerSecond, 9);
    }
  });

  it('penalises a worker not on its PS node', () => {
    for (const batch of BATCHES) {
      for (const job of byModel(batch).values()) {
        expect(progressRate(job, { ps: ['n0'], workers: ['n1'] })).toBeLessThan(progressRate(job, { ps: ['n0'], workers: ['n0'] }));
      }
    }
  });

  it('computes the rate by hand: two local cnn-rand workers and one remote at batch 32', () => {
    const job = byModel(32).get('cnn-rand')!;
    // 558 img/s per local worker, 34% lost remotely, PS cap 3200 not reached.
    expect(progressRate(job, { ps: ['a'], workers: ['a', 'a', 'b'] })).toBeCloseTo(558 * 2 + 558 * 0.66, 9);
  });

  it('makes VGG-16 the most communication-heavy model at every batch size', () => {
    for (const batch of BATCHES) {
      const models = byModel(batch);
      const vgg = throughput(models.get('vgg-16')!);
      for (const [name, job] of models) {
        if (name === 'vgg-16') continue;
        const other = throughput(job);
        expect(vgg.remotePenalty).toBeGreaterThan(other.remotePenalty);
        // PS headroom: how many local workers the PS can serve before saturating.
        expect(vgg.psCapacityImagesPerSecond / vgg.workerImagesPerSecond).toBeLessThan(
          other.psCapacityImagesPerSecond / other.workerImagesPerSecond,
        );
      }
    }
  });

  it('makes no progress without a running PS or without a running worker', () => {
    const job = jobsAt(32)[0]!;
    expect(progressRate(job, { ps: [], workers: ['n0', 'n0'] })).toBe(0);
    expect(progressRate(job, { ps: ['n0'], workers: [] })).toBe(0);
  });

  it('ideal runtime: max workers on the fewest nodes, plus start-up', () => {
    const scenario = loadScenario('kod2-paper-b32');
    const vgg = scenario.jobs[1]!;
    // PS (1 cpu) + 3 workers (3 cpu) fill node-0's 10 cpu; the fourth worker lands on node-1.
    expect(fewestNodesPlacement(vgg, 4, scenario.cluster)).toEqual({
      ps: ['node-0'],
      workers: ['node-0', 'node-0', 'node-0', 'node-1'],
    });
    // 3 × 55.4 + 55.4 × (1 − 0.61) = 187.806 img/s, capped by the PS at 107 img/s.
    expect(idealRuntimeSeconds(vgg, scenario.cluster, 15)).toBeCloseTo(15 + 100_000 / 107, 9);
  });
});
