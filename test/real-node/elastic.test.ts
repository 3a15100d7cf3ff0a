// Elastic scale-in and scale-out on real TensorFlow (policy ours), once per training style of
// docs/elastic-contract.md that can be elastic: an elastic job trains with 3 workers; the user
// suspends it (runPolicy.suspend) and resumes it, and it restarts from its checkpoint (its first
// global step after the restart is not 0); a job of a higher PriorityClass arrives on the full node,
// the elastic job is scaled in to 1 worker and keeps training (its global step keeps rising); the
// urgent job Succeeds, the elastic job is scaled out to 3 again (the new workers train: their own
// logs show steps), and it finishes its planned global step. All-reduce (MultiWorkerMirroredStrategy)
// fails at a scale-in, as the contract says: that is checked too.
import { SchedulingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESTIMATOR_TENSORFLOW_IMAGE } from '../../lab/local-cluster/real-node/index.ts';
import { adminKubeConfig, eventually, uniqueName } from '../support/kube.ts';
import { coreApi, createTFJob, livePods, patchTFJob, waitForCondition, waitForEventReasons } from '../support/tfjob.ts';
import {
  doneStep,
  firstStep,
  hostScratchDir,
  lastStep,
  podLog,
  realJob,
  realNodeSkipped,
  type ReplicaRun,
  startRealNodeRun,
  type RealNodeRun,
} from './support.ts';

const STEPS = 900;

interface Style {
  readonly name: string;
  readonly script: string;
  /** Fixed replicas besides the elastic Worker group. */
  readonly fixed: Readonly<Record<string, ReplicaRun>>;
  /** The replica whose log tells the global step (the chief). */
  readonly chiefPod: (job: string) => string;
  /** Whether each worker runs its own loop and logs steps (PS strategy workers only serve). */
  readonly workersLog: boolean;
  /** Seconds each step sleeps: the job must outlast the urgent one (ps_v1 sleeps per worker, PS strategy per step). */
  readonly stepSleep: string;
  /** Steps between progress lines (Estimator workers see the global step jump by the number of workers). */
  readonly progressEvery?: string;
  readonly image?: string;
}

const STYLES: readonly Style[] = [
  {
    name: 'tf.compat.v1 between-graph PS',
    script: 'ps_v1.py',
    fixed: { PS: { replicas: 1, cpu: '200m' } },
    chiefPod: (job) => `${job}-worker-0`,
    workersLog: true,
    stepSleep: '0.2',
  },
  {
    name: 'TF2 ParameterServerStrategy with a chief coordinator',
    script: 'ps_strategy.py',
    fixed: { Chief: { replicas: 1, cpu: '200m' }, PS: { replicas: 1, cpu: '100m' } },
    chiefPod: (job) => `${job}-chief-0`,
    workersLog: false,
    stepSleep: '0.1',
  },
  {
    name: 'Estimator train_and_evaluate (TensorFlow 2.15)',
    script: 'estimator.py',
    fixed: { Chief: { replicas: 1, cpu: '200m' }, PS: { replicas: 1, cpu: '100m' } },
    chiefPod: (job) => `${job}-chief-0`,
    workersLog: true,
    stepSleep: '0.2',
    progressEvery: '1',
    image: ESTIMATOR_TENSORFLOW_IMAGE,
  },
];

const workers = async (ns: string, job: string) => (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-'));

describe.skipIf(realNodeSkipped() !== undefined)('elastic scale-in and scale-out of real TensorFlow (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  const priorityClass = uniqueName('real-high');
  const scheduling = () => adminKubeConfig().makeApiClient(SchedulingV1Api);

  beforeAll(async () => {
    await scheduling().createPriorityClass({ body: { metadata: { name: priorityClass }, value: 100_000 } });
    run = await startRealNodeRun('real-elastic', 'ours', ['--scale-out-cooldown', '2s']);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
    await scheduling()
      .deletePriorityClass({ name: priorityClass })
      .catch(() => undefined);
  });

  for (const [i, style] of STYLES.entries()) {
    it(`${style.name}: suspended and resumed from its checkpoint, scaled in for a higher-priority job, out again, finishes its planned steps`, async () => {
      const name = `elastic-${i}`;
      const urgent = `urgent-${i}`;
      const image = style.image === undefined ? {} : { image: style.image };
      const replicas: Record<string, ReplicaRun> = { Worker: { replicas: 3, cpu: '500m', ...image } };
      for (const [type, r] of Object.entries(style.fixed)) replicas[type] = { ...r, ...image };
      const job = realJob(name, replicas, {
        spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
        env: { STEPS: String(STEPS), STEP_SLEEP: style.stepSleep, PROGRESS_EVERY: style.progressEvery ?? '10', CKPT_DIR: '/ckpt' },
        script: style.script,
        hostPath: hostScratchDir(`${ns}-${name}`),
      });
      await createTFJob(ns, job);
      await eventually(async () => (await workers(ns, name)).length === 3, { what: '3 workers', timeoutMs: 180_000 });

      const resumedAt = await suspendAndResume(ns, name, style.chiefPod(name));
      await eventually(async () => (await workers(ns, name)).length === 3, { what: '3 workers again', timeoutMs: 120_000 });
      const before = await waitForStepOf(ns, style.chiefPod(name), resumedAt + 20);

      await createTFJob(
        ns,
        realJob(
          urgent,
          { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '800m' } },
          {
            spec: { runPolicy: { cleanPodPolicy: 'Running', schedulingPolicy: { priorityClass } } },
            env: { STEPS: '150', STEP_SLEEP: '0.05' },
          },
        ),
      );
      await waitForEventReasons(ns, name, ['Preempted'], 120_000);
      await eventually(async () => (await workers(ns, name)).length === 1, { what: 'scaled in to 1 worker', timeoutMs: 120_000 });
      const atScaleIn = lastStep(await podLog(ns, style.chiefPod(name)));
      expect(atScaleIn).toBeGreaterThanOrEqual(before);
      // Training goes on with one worker while the urgent job runs.
      await waitForStepOf(ns, style.chiefPod(name), atScaleIn + 20);
      await waitForCondition(ns, urgent, 'Succeeded', { timeoutMs: 300_000 });

      await waitForEventReasons(ns, name, ['ScaledOut'], 120_000);
      const atScaleOut = lastStep(await podLog(ns, style.chiefPod(name)));
      await eventually(async () => (await workers(ns, name)).length === 3, { what: 'scaled out to 3 workers', timeoutMs: 120_000 });
      // The workers that came back train: their own logs report global steps past the scale-out.
      if (style.workersLog) for (const w of [1, 2]) await waitForStepOf(ns, `${name}-worker-${w}`, atScaleOut + 1);

      await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 480_000 });
      expect(doneStep(await podLog(ns, style.chiefPod(name)))).toBeGreaterThanOrEqual(STEPS);
    });
  }

  it('MultiWorkerMirroredStrategy: warned about at creation, resumes after a suspension, fails at a scale-in (worker 0 exits 1)', async () => {
    const name = 'allreduce';
    await createTFJob(
      ns,
      realJob(
        name,
        { Worker: { replicas: 3, cpu: '500m', restartPolicy: 'Never' } },
        {
          spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
          env: { STEPS: '100000', STEP_SLEEP: '0.1', PROGRESS_EVERY: '10', CKPT_DIR: '/ckpt' },
          script: 'mwms.py',
          hostPath: hostScratchDir(`${ns}-${name}`),
        },
      ),
    );
    await waitForEventReasons(ns, name, ['ElasticWithoutPS'], 60_000);
    // Stopped and restarted whole at the same size, it resumes from its checkpoint.
    const resumedAt = await suspendAndResume(ns, name, `${name}-worker-0`);
    await waitForStepOf(ns, `${name}-worker-0`, resumedAt + 20);
    await createTFJob(
      ns,
      realJob(
        'urgent-allreduce',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '800m' } },
        {
          spec: { runPolicy: { cleanPodPolicy: 'Running', schedulingPolicy: { priorityClass } } },
          env: { STEPS: '50', STEP_SLEEP: '0.05' },
        },
      ),
    );
    await waitForEventReasons(ns, name, ['Preempted'], 120_000);
    await waitForCondition(ns, name, 'Failed', { timeoutMs: 180_000 });
    const worker0 = (await coreApi().readNamespacedPod({ namespace: ns, name: `${name}-worker-0` })).status?.containerStatuses?.[0];
    expect(worker0?.state?.terminated?.exitCode).toBe(1);
    await waitForCondition(ns, 'urgent-allreduce', 'Succeeded', { timeoutMs: 300_000 });
  });
});

/**
 * Suspends the job by its runPolicy past its first checkpoints (every 20 steps), waits until it has no
 * pods, resumes it, and returns the first global step its new chief reports (not 0: it restored).
 */
async function suspendAndResume(ns: string, name: string, chiefPod: string): Promise<number> {
  await waitForStepOf(ns, chiefPod, 50);
  const chiefUid = (await livePods(ns, name)).find((p) => p.metadata?.name === chiefPod)?.metadata?.uid;
  await patchTFJob(ns, name, { spec: { runPolicy: { suspend: true } } });
  await eventually(async () => (await livePods(ns, name)).length === 0, { what: `${name} has no pods`, timeoutMs: 120_000 });
  await patchTFJob(ns, name, { spec: { runPolicy: { suspend: false } } });
  const resumedAt = await eventually(
    async () => {
      const chief = (await livePods(ns, name)).find((p) => p.metadata?.name === chiefPod);
      if (chief === undefined || chief.metadata?.uid === chiefUid) return false;
      return firstStep(await podLog(ns, chiefPod)) ?? false;
    },
    { what: `${name} resumed`, timeoutMs: 240_000, intervalMs: 1_000 },
  );
  expect(resumedAt).toBeGreaterThanOrEqual(20);
  return resumedAt;
}

async function waitForStepOf(ns: string, pod: string, step: number): Promise<number> {
  return eventually(
    async () => {
      const s = lastStep(await podLog(ns, pod));
      return s >= step ? s : false;
    },
    { what: `${pod} reporting global step ${step}`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
}
