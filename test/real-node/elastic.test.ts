// Elastic scale-in and scale-out on real TensorFlow (policy ours): an elastic job trains with 3
// workers, a job of a higher PriorityClass arrives on the full node, the elastic job is scaled in to 1
// worker and keeps training (its global step keeps rising), the urgent job Succeeds, the elastic job
// is scaled out to 3 again (the new workers train: their own logs show steps), and it finishes its
// planned global step. Once per training style of docs/elastic-contract.md that can be elastic.
import { SchedulingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, eventually, uniqueName } from '../support/kube.ts';
import { createTFJob, livePods, waitForCondition, waitForEventReasons } from '../support/tfjob.ts';
import { doneStep, lastStep, podLog, realJob, realNodeSkipped, type ReplicaRun, startRealNodeRun, type RealNodeRun } from './support.ts';

const STEPS = 1200;

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
];

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
    it(`${style.name}: scaled in for a higher-priority job, out again, and finishes its planned steps`, async () => {
      const name = `elastic-${i}`;
      const urgent = `urgent-${i}`;
      const job = realJob(
        name,
        { ...style.fixed, Worker: { replicas: 3, cpu: '500m' } },
        {
          spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
          env: { STEPS: String(STEPS), STEP_SLEEP: style.stepSleep, PROGRESS_EVERY: '10' },
          script: style.script,
        },
      );
      await createTFJob(ns, job);
      await eventually(async () => (await livePods(ns, name)).filter((p) => p.metadata?.name?.includes('-worker-')).length === 3, {
        what: '3 workers',
        timeoutMs: 120_000,
      });
      const before = await waitForStepOf(ns, style.chiefPod(name), 30);

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
      await eventually(async () => (await livePods(ns, name)).filter((p) => p.metadata?.name?.includes('-worker-')).length === 1, {
        what: 'scaled in to 1 worker',
        timeoutMs: 120_000,
      });
      const atScaleIn = lastStep(await podLog(ns, style.chiefPod(name)));
      expect(atScaleIn).toBeGreaterThanOrEqual(before);
      // Training goes on with one worker while the urgent job runs.
      await waitForStepOf(ns, style.chiefPod(name), atScaleIn + 20);
      await waitForCondition(ns, urgent, 'Succeeded', { timeoutMs: 300_000 });

      await waitForEventReasons(ns, name, ['ScaledOut'], 120_000);
      const atScaleOut = lastStep(await podLog(ns, style.chiefPod(name)));
      await eventually(async () => (await livePods(ns, name)).filter((p) => p.metadata?.name?.includes('-worker-')).length === 3, {
        what: 'scaled out to 3 workers',
        timeoutMs: 120_000,
      });
      // The workers that came back train: their own logs report global steps past the scale-out.
      if (style.workersLog) for (const w of [1, 2]) await waitForStepOf(ns, `${name}-worker-${w}`, atScaleOut + 1);

      await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 480_000 });
      expect(doneStep(await podLog(ns, style.chiefPod(name)))).toBeGreaterThanOrEqual(STEPS);
    });
  }
});

async function waitForStepOf(ns: string, pod: string, step: number): Promise<number> {
  return eventually(
    async () => {
      const s = lastStep(await podLog(ns, pod));
      return s >= step ? s : false;
    },
    { what: `${pod} reporting global step ${step}`, timeoutMs: 300_000, intervalMs: 1_000 },
  );
}
