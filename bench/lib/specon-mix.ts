// The job mix of bench/specon-real.ts (docs/vertical-real-results.md §c): converged elastic PS jobs
// (SpeCon may move their worker 1) and single-worker jobs still learning, as TFJobs of the trainers of
// python/examples/ on the real nodes. Pure: no I/O.
import { trainerReplicaSpec } from '../../lab/local-cluster/real-node/index.ts';

/** converged: an elastic ps_v1.py job whose evaluation loss is flat at its noise floor; learning: vertical_fit.py, loss falling to the end. */
export type SpeconJobKind = 'converged' | 'learning';

export interface SpeconMixJob {
  readonly name: string;
  readonly kind: SpeconJobKind;
  readonly steps: number;
}

// Converged: PS + 2 workers, each worker step paced by a short sleep (so the job outlasts SpeCon's
// decision whatever the load) yet busy enough to hold CPU. Learning: full-batch linear regression whose
// loss falls by e^LEARNING_DECAY over its run, paced to ≤ LEARNING_MAX_RATE steps/s so an idle host
// does not end it before the operator has judged it.
export const CONVERGED_WORKERS = 2;
const CONVERGED_STEP_SLEEP = '0.02';
/** 300m: three moved workers (900m) leave realnode-1 (1 CPU allocatable) uncontended, so each converged job may move once. */
export const CONVERGED_WORKER_LIMIT = '300m';
const LEARNING_DECAY = 30;
const LEARNING_MAX_RATE = 1_500;
/** The learning jobs' limit: the whole of realnode-0, so it is contended from the start (SpeCon's trigger). */
export const LEARNING_LIMIT = '2';

export const SPECON_MIX: readonly SpeconMixJob[] = [
  { name: 'conv-1', kind: 'converged', steps: 4_000 },
  { name: 'conv-2', kind: 'converged', steps: 5_000 },
  { name: 'conv-3', kind: 'converged', steps: 6_000 },
  { name: 'learn-1', kind: 'learning', steps: 60_000 },
  { name: 'learn-2', kind: 'learning', steps: 80_000 },
  { name: 'learn-3', kind: 'learning', steps: 100_000 },
];

/** The pods a job of the mix runs at once (PS and workers, or its one worker). */
export function podsOf(job: SpeconMixJob): number {
  return job.kind === 'converged' ? 1 + CONVERGED_WORKERS : 1;
}

function replicaSpecs(job: SpeconMixJob): Record<string, unknown> {
  if (job.kind === 'learning') {
    const env = {
      MODEL: 'linear',
      WIDTH: '256',
      NOISE: '0',
      STEPS: String(job.steps),
      LR: String(LEARNING_DECAY / (4 * job.steps)),
      PROGRESS_EVERY: '200',
      MAX_STEPS_PER_SECOND: String(LEARNING_MAX_RATE),
    };
    return { Worker: trainerReplicaSpec({ replicas: 1, cpu: '200m', cpuLimit: LEARNING_LIMIT, script: 'vertical_fit.py', env }) };
  }
  const env = { STEPS: String(job.steps), STEP_SLEEP: CONVERGED_STEP_SLEEP, PROGRESS_EVERY: '20', NOISE: '1', EVAL_BATCH: '1000' };
  return {
    PS: trainerReplicaSpec({ replicas: 1, cpu: '100m', script: 'ps_v1.py', env }),
    Worker: trainerReplicaSpec({ replicas: CONVERGED_WORKERS, cpu: '100m', cpuLimit: CONVERGED_WORKER_LIMIT, script: 'ps_v1.py', env }),
  };
}

/** The TFJob of one job of the mix; the same in every condition (only the operator's flags differ). */
export function speconTfJob(job: SpeconMixJob): Record<string, unknown> {
  const elastic = job.kind === 'converged' ? { elasticPolicy: { minReplicas: CONVERGED_WORKERS, maxReplicas: CONVERGED_WORKERS } } : {};
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name: job.name },
    // cleanPodPolicy Running: a finished job's PS (which never exits by itself) leaves the node.
    spec: { runPolicy: { cleanPodPolicy: 'Running' }, ...elastic, tfReplicaSpecs: replicaSpecs(job) },
  };
}

export const SPECON_CONDITIONS = ['flowcon', 'specon'] as const;
export type SpeconCondition = (typeof SPECON_CONDITIONS)[number];

/**
 * The operator's flags: the same FlowCon rounds in both (SpeCon is FlowCon's limits plus moves, so
 * flowcon is the baseline that differs by the moves alone); every 2 s with progress read every second,
 * as the SpeCon real-node test runs it.
 */
export function speconOperatorFlags(condition: SpeconCondition): string[] {
  return ['--vertical-policy', condition, '--vertical-interval', '2s', '--progress-period', '1s'];
}

export function parseSpeconConditions(list: string): SpeconCondition[] {
  return list.split(',').map((c) => {
    if (!(SPECON_CONDITIONS as readonly string[]).includes(c))
      throw new Error(`--conditions: ${c} is not one of ${SPECON_CONDITIONS.join(', ')}`);
    return c as SpeconCondition;
  });
}
