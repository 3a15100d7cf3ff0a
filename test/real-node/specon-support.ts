// The SpeCon scenario of two-nodes.test.ts on real TensorFlow: `slow`, an elastic PS job whose
// evaluation loss flattens at its noise floor within seconds, and `fast`, a single worker whose loss
// keeps falling and whose CPU limit is the whole of realnode-0; both on realnode-0 with the operator
// running `--vertical-policy specon`. Here: the two jobs, the operator's flags, and one line per job of
// what the operator decided (traced while the test waits; the message of a wait that timed out).
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import { steadyWatch } from '../support/steady-watch.ts';
import { getTFJob, jobEvents, livePods, type TestTFJob } from '../support/tfjob.ts';
import { realJob } from './support.ts';

export const SLOW_STEPS = 1200;
// Paced to at most 1,500 steps/s, so at least ~47 s even on a fast idle host (unpaced, one ran at
// 3,500/s and ended 12 s after SpeCon's decision), ~2 min at 600 (a loaded one): well past SpeCon's
// decision, two or three rounds after its first loss line, either way.
const FAST_STEPS = 70_000;
const FAST_MAX_STEPS_PER_SECOND = 1_500;
// fast's loss falls by e^FAST_DECAY over its run: a 2 s interval of a run of up to ~5 minutes still
// shows a gain far above α = 0.05 per core (its limit is 2 cores), so it stays New throughout.
const FAST_DECAY = 30;

/**
 * SpeCon with FlowCon's default α (0.05). Rounds every 2 s: slow's loss is flat a few seconds after
 * its first line and two rounds below α make it Completing; fast has a growth two rounds after its
 * first line. Progress read every second.
 */
export const SPECON_FLAGS: readonly string[] = ['--vertical-policy', 'specon', '--vertical-interval', '2s', '--progress-period', '1s'];

/**
 * PS 1 + Worker 2 (elastic, min = max = 2: nothing but the move changes it). NOISE and EVAL_BATCH make
 * its reported loss the one of a fixed evaluation batch, flat at the noise floor once converged (SGD's
 * jitter moves it far less than α per core). 500m worker limits: a worker fits realnode-1
 * (1 CPU) without making it contended. The sleep paces it (~8 steps/s per worker whatever the load),
 * so it outlasts the move and the moved worker's start.
 */
export function slowJob(): TestTFJob {
  return realJob(
    'slow',
    { PS: { replicas: 1, cpu: '100m' }, Worker: { replicas: 2, cpu: '100m', cpuLimit: '500m' } },
    {
      spec: { elasticPolicy: { minReplicas: 2, maxReplicas: 2 } },
      env: { STEPS: String(SLOW_STEPS), STEP_SLEEP: '0.1', PROGRESS_EVERY: '10', NOISE: '1', EVAL_BATCH: '1000' },
    },
  );
}

/**
 * Full-batch gradient descent (vertical_fit.py linear, no noise): CPU-bound, its loss falls steadily to
 * the end. The fall per step is FAST_STEPS's whatever `steps`: a longer run (up to ~150,000 steps,
 * where float64 still resolves the loss) learns as fast for longer.
 */
export function fastJob(steps = FAST_STEPS): TestTFJob {
  return realJob(
    'fast',
    { Worker: { replicas: 1, cpu: '200m', cpuLimit: '2', script: 'vertical_fit.py' } },
    {
      env: {
        MODEL: 'linear',
        WIDTH: '256',
        NOISE: '0',
        STEPS: String(steps),
        LR: String(FAST_DECAY / (4 * FAST_STEPS)),
        PROGRESS_EVERY: '200',
        MAX_STEPS_PER_SECOND: String(FAST_MAX_STEPS_PER_SECOND),
      },
    },
  );
}

export interface MigrationLast {
  pod?: string;
  from?: string;
  to?: string;
  time?: string;
  state?: string;
  placedOn?: string;
}

interface SpeconStatus {
  progress?: { step?: number };
  verticalResize?: { list?: string; growthEfficiency?: string; containers?: { pod: string; cpuLimit: string; state: string }[] };
  migration?: { migrations?: number; last?: MigrationLast };
}

export const speconStatusOf = (job: TestTFJob) => (job.status ?? {}) as SpeconStatus;

/** One line per job: FlowCon's list and growth, the limits set, the move, the pods and where they run. */
export async function speconSnapshot(ns: string): Promise<string> {
  const lines: string[] = [];
  for (const name of ['slow', 'fast']) {
    const s = speconStatusOf(await getTFJob(ns, name));
    const v = s.verticalResize;
    const pods = (await livePods(ns, name)).map((p) => `${p.metadata?.name ?? ''}@${p.spec?.nodeName ?? '-'}/${p.status?.phase ?? '-'}`);
    lines.push(
      `${name}: step=${s.progress?.step ?? '-'} list=${v?.list ?? '-'} ge=${v?.growthEfficiency ?? '-'} ` +
        `limits=${(v?.containers ?? []).map((c) => `${c.pod}:${c.cpuLimit}/${c.state}`).join(',') || '-'} ` +
        `migration=${JSON.stringify(s.migration ?? null)} pods=${pods.join(',')}`,
    );
  }
  return lines.join('\n  ');
}

/** The job's events, `reason: message`, oldest first. */
export async function eventLines(ns: string, name: string): Promise<string[]> {
  const events = await jobEvents(ns, name);
  return events
    .sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')))
    .map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`);
}

/** Every pod of the job from the start of the watch on: the UIDs and the nodes seen under each pod name. */
export interface PodHistory {
  readonly uids: Map<string, Set<string>>;
  readonly boundOn: Map<string, Set<string>>;
  readonly stop: () => void;
}

export async function followPods(ns: string, job: string): Promise<PodHistory> {
  const uids = new Map<string, Set<string>>();
  const boundOn = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, k: string, v: string | undefined) => {
    if (v !== undefined && v !== '') m.set(k, new Set(m.get(k)).add(v));
  };
  const stop = await steadyWatch(`/api/v1/namespaces/${ns}/pods`, { labelSelector: `${LABEL_JOB_NAME}=${job}` }, (_t, obj) => {
    const pod = obj as V1Pod;
    const name = pod.metadata?.name ?? '';
    add(uids, name, pod.metadata?.uid);
    add(boundOn, name, pod.spec?.nodeName);
  });
  return { uids, boundOn, stop };
}

/** The job's status.migration.last as the watch delivers it, handed to `onMoving` the first time it says Moving. */
export async function onFirstMoving(ns: string, job: string, onMoving: (last: MigrationLast) => void): Promise<() => void> {
  let seen = false;
  return steadyWatch(`/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`, { fieldSelector: `metadata.name=${job}` }, (_t, obj) => {
    const last = speconStatusOf(obj as TestTFJob).migration?.last;
    if (seen || last?.state !== 'Moving') return;
    seen = true;
    onMoving(last);
  });
}
