import { describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHT_CONFIG } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { JobSpec, NodeInfo, Resources } from '../../../src/scheduler/types.ts';
import {
  baseLogit,
  clusterAllocatable,
  clusterShare,
  compareRank,
  jobWeight,
  minimumRequests,
  sigmoid,
} from '../../../src/scheduler/ranking/weight.ts';
import { cpu, Gi, jobSpec, node, paperTestbed, snapshot, waiting } from './helpers/builders.ts';

const cfg = DEFAULT_WEIGHT_CONFIG;
const weightOn = (spec: JobSpec, nodes: readonly NodeInfo[]): number => jobWeight(spec, clusterAllocatable(nodes), cfg).weight;

// kod2-paper-like mix: 1 PS + 1..4 workers (min 1), four models of different size. The per-model
// requests are our assumptions (the paper gives none): CNN-rand is tiny, VGG-16 the heaviest.
const KOD2_MODELS: Record<string, { ps: Resources; worker: Resources }> = {
  'cnn-rand': { ps: { cpu: cpu(0.5), memory: 1 * Gi }, worker: { cpu: cpu(1), memory: 2 * Gi } },
  'resnet-50': { ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(2), memory: 6 * Gi } },
  'resnext-110': { ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(2), memory: 4 * Gi } },
  'vgg-16': { ps: { cpu: cpu(2), memory: 4 * Gi }, worker: { cpu: cpu(3), memory: 8 * Gi } },
};

// Philly-like (docs/simulation-results.md §1): 16 nodes × (4 GPU, 64 cpu, 256Gi); 1 PS (4 cpu, 16Gi) + workers
// of (1 GPU, 12 cpu, 48Gi); max workers as in the traces, min = ceil(max / 4) (and min = max).
const PHILLY_MAX_WORKERS = [1, 4, 6, 8, 12, 16, 24, 32, 48];
const phillyNodes = Array.from({ length: 16 }, (_, i) => node(`p-${i}`, { cpu: cpu(64), memory: 256 * Gi, 'nvidia.com/gpu': 4 }));
const phillyJob = (max: number, min: number): JobSpec =>
  jobSpec(`philly-${max}-${min}`, {
    ps: { cpu: cpu(4), memory: 16 * Gi },
    worker: { cpu: cpu(12), memory: 48 * Gi, 'nvidia.com/gpu': 1 },
    min,
    max,
  });

/** "Spread over most of (0, 1), not all near 0.5 or 1" (scheduling.md §5.1 c), made testable. */
function expectSpread(weights: readonly number[]): void {
  const lo = Math.min(...weights);
  const hi = Math.max(...weights);
  expect(hi - lo).toBeGreaterThanOrEqual(0.5);
  expect(lo).toBeLessThan(0.5);
  expect(hi).toBeGreaterThan(0.5);
  for (const w of weights) {
    expect(w).toBeGreaterThan(0.02);
    expect(w).toBeLessThan(0.98);
  }
}

describe('weight formula', () => {
  it('matches a hand computation on the paper testbed', () => {
    // 3 × (10 cpu, 32Gi): share = 3/30 + 6Gi/96Gi = 0.1625;
    // ω' = 2.5 · (0.5 · ln 2 − ln(0.1625 / 0.1)) = 2.5 · (0.346574 − 0.485508) = −0.347336; ω = 1 / (1 + e^0.347336) = 0.414029
    const spec = jobSpec('a', { ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(2), memory: 4 * Gi }, min: 1 });
    const w = jobWeight(spec, clusterAllocatable(paperTestbed()), cfg);
    expect(w.share).toBeCloseTo(0.1625, 12);
    expect(w.logit).toBeCloseTo(-0.347336, 5);
    expect(w.weight).toBeCloseTo(0.414029, 5);
  });

  it('(a) more minimum workers at equal requests raises the weight; more requests lowers it', () => {
    const nodes = paperTestbed();
    const oneBig = jobSpec('one', { worker: { cpu: cpu(2), memory: 4 * Gi }, min: 1 });
    const twoSmall = jobSpec('two', { worker: { cpu: cpu(1), memory: 2 * Gi }, min: 2 });
    expect(minimumRequests(oneBig)).toEqual(minimumRequests(twoSmall));
    expect(weightOn(twoSmall, nodes)).toBeGreaterThan(weightOn(oneBig, nodes));
    const heavier = jobSpec('heavy', { worker: { cpu: cpu(3), memory: 4 * Gi }, min: 1 });
    expect(weightOn(heavier, nodes)).toBeLessThan(weightOn(oneBig, nodes));
    const moreMemory = jobSpec('mem', { worker: { cpu: cpu(2), memory: 8 * Gi }, min: 1 });
    expect(weightOn(moreMemory, nodes)).toBeLessThan(weightOn(oneBig, nodes));
  });

  it('(a) for identical workers a larger minimum still ranks lower (fewer resources first)', () => {
    const ws = [1, 2, 4, 8].map((m) => weightOn(phillyJob(m, m), phillyNodes));
    for (let i = 1; i < ws.length; i++) expect(ws[i]!).toBeLessThan(ws[i - 1]!);
  });

  it('(b) counts every exposed resource, each as a fraction of its cluster total', () => {
    const total = { cpu: cpu(64), memory: 256 * Gi, 'nvidia.com/gpu': 4, pods: 110 };
    expect(clusterShare({ cpu: cpu(16), memory: 64 * Gi, 'nvidia.com/gpu': 1, pods: 1 }, total)).toBeCloseTo(0.25 + 0.25 + 0.25, 12);
    // A GPU is scarcer in a cluster with fewer GPUs: the same job weighs less there.
    const gpuJob = jobSpec('g', { worker: { cpu: cpu(4), memory: 8 * Gi, 'nvidia.com/gpu': 1 } });
    const fewGpus = [node('a', { cpu: cpu(64), memory: 256 * Gi, 'nvidia.com/gpu': 1 })];
    const manyGpus = [node('a', { cpu: cpu(64), memory: 256 * Gi, 'nvidia.com/gpu': 8 })];
    expect(weightOn(gpuJob, fewGpus)).toBeLessThan(weightOn(gpuJob, manyGpus));
  });

  it('(c) spreads the kod2-paper-like mix over most of (0, 1)', () => {
    const nodes = paperTestbed();
    const weights = Object.entries(KOD2_MODELS).map(([name, m]) =>
      weightOn(jobSpec(name, { ps: m.ps, worker: m.worker, min: 1, max: 4 }), nodes),
    );
    expectSpread(weights);
    // Distinct models get clearly distinct weights.
    const sorted = [...weights].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThan(0.03);
  });

  it('(c) spreads the Philly-like jobs over most of (0, 1), with min = ceil(max/4) and with min = max', () => {
    expectSpread(PHILLY_MAX_WORKERS.map((max) => weightOn(phillyJob(max, Math.ceil(max / 4)), phillyNodes)));
    expectSpread(PHILLY_MAX_WORKERS.map((max) => weightOn(phillyJob(max, max), phillyNodes)));
  });

  it('(c) a plain positive ω′ would have saturated: every weight in (0.5, 1)', () => {
    // The counter-example the doc warns about: ω' = m / share (positive, uncentred).
    const naive = PHILLY_MAX_WORKERS.map((max) => {
      const spec = phillyJob(max, Math.ceil(max / 4));
      return sigmoid(Math.ceil(max / 4) / clusterShare(minimumRequests(spec), clusterAllocatable(phillyNodes)));
    });
    expect(Math.min(...naive)).toBeGreaterThan(0.99);
  });

  it('(d) a job’s weight does not change when other jobs come and go', () => {
    const nodes = paperTestbed();
    const alone = schedule('kod2', snapshot(nodes, [waiting('a/job')]));
    const crowd = schedule(
      'kod2',
      snapshot(nodes, [
        waiting('a/job'),
        waiting('b/big', { worker: { cpu: cpu(9), memory: 30 * Gi } }),
        waiting('c/small', { worker: { cpu: 100, memory: Gi } }),
      ]),
    );
    expect(crowd.weights['a/job']).toBe(alone.weights['a/job']);
  });

  it('(e) a higher priority class outranks any weight; within a class, weight, then earlier t_j, then key', () => {
    const base = { key: 'x', priority: 0, logit: 0, submittedAt: 10 };
    expect(compareRank({ ...base, key: 'hi', priority: 1, logit: -50 }, { ...base, key: 'lo', logit: 50 })).toBeLessThan(0);
    expect(compareRank({ ...base, key: 'a', logit: 1 }, { ...base, key: 'b', logit: 0 })).toBeLessThan(0);
    expect(compareRank({ ...base, key: 'b', submittedAt: 5 }, { ...base, key: 'a' })).toBeLessThan(0);
    expect(compareRank({ ...base, key: 'a' }, { ...base, key: 'b' })).toBeLessThan(0);
    expect(compareRank({ ...base, key: 'a' }, { ...base, key: 'a' })).toBe(0);
  });

  it('keeps jobs apart in a 5,000-node cluster, where weights crowd towards 1', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n-${i}`, { cpu: cpu(64), memory: 256 * Gi }));
    const total = clusterAllocatable(nodes);
    const small = jobWeight(jobSpec('s', { worker: { cpu: cpu(1), memory: Gi } }), total, cfg);
    const large = jobWeight(jobSpec('l', { worker: { cpu: cpu(2), memory: Gi } }), total, cfg);
    expect(small.weight).toBeGreaterThan(0.999);
    expect(small.logit).toBeGreaterThan(large.logit);
    expect(baseLogit(1, 0, cfg)).toBeLessThan(Number.POSITIVE_INFINITY);
  });
});
