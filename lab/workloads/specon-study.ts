// The SpeCon study's jobs and nodes (docs/simulation-results.md §9.5): elastic asynchronous jobs (a PS
// and two workers, as the real-node SpeCon test's `slow`) on two nodes of their own CPUs, some
// converging early (they become FlowCon's Completing: the ones SpeCon moves), some still learning
// when they end (the fast-growing jobs a move makes room for). Synthetic: lengths, curve speeds and
// arrivals are chosen to differ, not measured.
import type { ClusterShape, WorkloadJob } from './model.ts';
import { seededRandom } from './random.ts';
import { convergingCurve } from './vertical-study.ts';

/** Two nodes with their own CPUs: node-0 of 2 cores (this project's real node) and big-0 of 4. */
export const SPECON_CLUSTER: ClusterShape = {
  nodeCount: 1,
  allocatable: { cpu: 2000, memory: 8 * 2 ** 30 },
  extraPools: [{ prefix: 'big', count: 1, allocatable: { cpu: 4000, memory: 16 * 2 ** 30 } }],
};

/** Steps per second of one worker that gets its whole demand. */
const WORKER_RATE = 5;

export interface SpeconStudyJob {
  readonly name: string;
  readonly submitSeconds: number;
  /** Seconds it would take with both workers at their whole demand. */
  readonly aloneSeconds: number;
  /** k of convergingCurve: 12 converges at once, 1 still learns at the end. */
  readonly speed: number;
}

/** An elastic asynchronous job: a PS and two workers of 250m each (min = max = 2), its curve of speed k. */
export function speconJob(j: SpeconStudyJob): WorkloadJob {
  const work = j.aloneSeconds * 2 * WORKER_RATE;
  return {
    name: j.name,
    submitSeconds: j.submitSeconds,
    ps: { count: 1, requests: { cpu: 250, memory: 2 ** 30 } },
    workers: { requests: { cpu: 250, memory: 2 ** 30 }, min: 2, max: 2 },
    work,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: WORKER_RATE, remotePenalty: 0, psCapacityImagesPerSecond: 10 * WORKER_RATE },
    label: `k=${j.speed}`,
    curve: convergingCurve(work, j.speed),
  };
}

/** Six jobs, three converging early and three learning slowly, arriving a minute apart. */
export function speconStudyJobs(): WorkloadJob[] {
  return BASE_MIX.map((j, i) => speconJob({ ...j, submitSeconds: 60 * i }));
}

const BASE_MIX = [
  { name: 'mlp-early', speed: 12, aloneSeconds: 600 },
  { name: 'lstm-slow', speed: 1, aloneSeconds: 400 },
  { name: 'cnn-early', speed: 10, aloneSeconds: 500 },
  { name: 'vae-slow', speed: 1.5, aloneSeconds: 450 },
  { name: 'gru-early', speed: 8, aloneSeconds: 550 },
  { name: 'rnn-slow', speed: 2, aloneSeconds: 350 },
] as const;

/**
 * A drawn mix: `count` jobs, every other one converging early (k 8–12) and the rest learning slowly
 * (k 1–2), 300–700 s alone, arriving with exponential gaps of mean `meanGapSeconds`.
 */
export function randomSpeconJobs(seed: number, count: number, meanGapSeconds: number): WorkloadJob[] {
  const random = seededRandom(seed);
  let at = 0;
  return Array.from({ length: count }, (_, i) => {
    const early = i % 2 === 0;
    const speed = early ? 8 + 4 * random() : 1 + random();
    const aloneSeconds = Math.round(300 + 400 * random());
    const j = speconJob({
      name: `${early ? 'early' : 'slow'}-${i}`,
      speed: Number(speed.toFixed(2)),
      aloneSeconds,
      submitSeconds: Math.round(at),
    });
    at += -meanGapSeconds * Math.log(1 - random());
    return j;
  });
}
