// The vertical-resizing study's jobs (docs/simulation-results.md §9), shaped like the FlowCon and DQoES
// papers' experiments and the real-node benchmark: a few CPU training jobs started together on one
// node of 2 cores, each a single worker container (as the papers' jobs: no PS), of different lengths and convergence speeds. Synthetic:
// the lengths, rates and curve speeds are chosen to differ, not measured.
import type { ClusterShape, WorkloadJob } from './model.ts';
import type { ProgressCurve } from './progress-curve.ts';

/** One node of 2 cores, like this project's real node. */
export const STUDY_CLUSTER: ClusterShape = { nodeCount: 1, allocatable: { cpu: 2000, memory: 8 * 2 ** 30 } };

/** Steps per second of a job whose worker has its whole demand (the node's 2 cores). */
const FULL_RATE = 10;

/** Evaluation lines per job (one every 2.5 % of its steps). */
const EVALUATIONS = 40;

/** Accuracy after `fraction` of the steps: 1 − e^(−k·f), scaled into [0.1, 0.9]; larger k converges sooner. */
export function convergingCurve(work: number, speed: number): ProgressCurve {
  const points = Array.from({ length: EVALUATIONS }, (_, i) => {
    const fraction = (i + 1) / EVALUATIONS;
    return { work: work * fraction, metric: 0.1 + 0.8 * (1 - Math.exp(-speed * fraction)) };
  });
  return { name: 'accuracy', higherIsBetter: true, points };
}

interface StudyJob {
  readonly name: string;
  /** Seconds it would take alone with the whole node. */
  readonly aloneSeconds: number;
  /** k of convergingCurve. */
  readonly speed: number;
  /** Throughput target (steps/s), DQoES jobs only. */
  readonly target?: number;
}

function job(j: StudyJob): WorkloadJob {
  const work = j.aloneSeconds * FULL_RATE;
  return {
    name: j.name,
    submitSeconds: 0,
    ps: { count: 0, requests: {} },
    workers: { requests: { cpu: 250, memory: 2 ** 30 }, min: 1, max: 1 },
    work,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: FULL_RATE, remotePenalty: 0, psCapacityImagesPerSecond: 10 * FULL_RATE },
    label: `k=${j.speed}`,
    curve: convergingCurve(work, j.speed),
    ...(j.target === undefined ? {} : { qoe: { stepsPerSecond: j.target, tolerance: 0.1, adjustStep: 0.1 } }),
  };
}

/** Alone-seconds of the five FlowCon jobs, fastest-converging first, in the two mixes. */
const FLOWCON_LENGTHS = {
  /** The slow convergers are the long jobs (they would finish last under a fair share anyway). */
  'slow-long': [240, 360, 300, 480, 420],
  /** The same lengths, reversed: the slow convergers are the short jobs. */
  'slow-short': [420, 480, 300, 360, 240],
} as const;

/** FlowCon's experiment: five jobs, two converging fast, two slowly, one between. */
export function flowconStudyJobs(mix: keyof typeof FLOWCON_LENGTHS = 'slow-long'): WorkloadJob[] {
  const lengths = FLOWCON_LENGTHS[mix];
  return [
    { name: 'mlp-fast', speed: 12 },
    { name: 'cnn-fast', speed: 8 },
    { name: 'cnn-mid', speed: 4 },
    { name: 'lstm-slow', speed: 1.5 },
    { name: 'vae-slow', speed: 1 },
  ].map((j, i) => job({ ...j, aloneSeconds: lengths[i]! }));
}

/**
 * DQoES's experiment: four equal jobs with step-rate targets summing to 90 % of the node's rate:
 * under an equal share (2.5 steps/s each) one is ahead (1.2), two within ±10 % (2.3, 2.7) and one
 * behind (2.8).
 */
export function dqoesStudyJobs(): WorkloadJob[] {
  return [
    { name: 'mlp-a', aloneSeconds: 300, speed: 8, target: 1.2 },
    { name: 'cnn-b', aloneSeconds: 300, speed: 4, target: 2.3 },
    { name: 'lstm-c', aloneSeconds: 300, speed: 2, target: 2.8 },
    { name: 'vae-d', aloneSeconds: 300, speed: 1, target: 2.7 },
  ].map(job);
}
