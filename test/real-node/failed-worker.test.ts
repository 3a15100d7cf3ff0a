// A failed elastic worker on real TensorFlow (policy ours; docs/elastic-contract.md, "A failed
// worker"): worker 2 of 3 exits once at a given global step (FAIL_ONCE, python/examples/fail_once.py).
// OnFailure: the kubelet restarts it in its pod, with the same TF_CONFIG; ExitCode with 137: the
// operator deletes the pod and creates it again under the same name, with the same TF_CONFIG. Either
// way the job finishes its planned steps, and a ParameterServerStrategy chief logs the worker's
// recovery. Never with exit 1: the slot is given up (pod kept, WorkerSlotGivenUp, status), no worker
// replaces it, and the job finishes on 2 workers.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kube.ts';
import {
  coreApi,
  createTFJob,
  deleteTFJob,
  getTFJob,
  jobPods,
  waitForCondition,
  waitForJobEvents,
  type TestTFJob,
} from '../support/tfjob.ts';
import {
  doneStep,
  hostScratchDir,
  lastStep,
  podLog,
  realJob,
  realNodeSkipped,
  startRealNodeRun,
  type RealNodeRun,
  type ReplicaRun,
} from './support.ts';

const FAIL_AT = 60;

interface Style {
  readonly key: string;
  readonly name: string;
  readonly script: string;
  readonly fixed: Readonly<Record<string, ReplicaRun>>;
  readonly chiefPod: (job: string) => string;
  /** Long enough for a restarted worker to come back before the end (ps_v1 sleeps per worker step, PS strategy per step). */
  readonly stepSleep: string;
}

const V1: Style = {
  key: 'v1',
  name: 'tf.compat.v1 between-graph PS',
  script: 'ps_v1.py',
  fixed: { PS: { replicas: 1, cpu: '200m' } },
  chiefPod: (job) => `${job}-worker-0`,
  stepSleep: '0.3',
};
const PSS: Style = {
  key: 'pss',
  name: 'TF2 ParameterServerStrategy',
  script: 'ps_strategy.py',
  fixed: { Chief: { replicas: 1, cpu: '200m' }, PS: { replicas: 1, cpu: '100m' } },
  chiefPod: (job) => `${job}-chief-0`,
  stepSleep: '0.2',
};

const tfConfigInLog = (log: string) => /TF_CONFIG (\{[^\n]*\})/.exec(log)?.[1];
const givenUp = (job: TestTFJob) => (job.status as { givenUpWorkerSlots?: number[] } | undefined)?.givenUpWorkerSlots;
const tfConfigOfPod = (pod: V1Pod | undefined) => pod?.spec?.containers[0]?.env?.find((e) => e.name === 'TF_CONFIG')?.value;

describe.skipIf(realNodeSkipped() !== undefined)('a failed elastic worker of real TensorFlow (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-failed-worker', 'ours');
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  /** The job: 3 elastic workers (1 to 3), worker 2 failing once with `code` at global step FAIL_AT. */
  async function start(style: Style, name: string, restartPolicy: string, code: number, steps: number): Promise<void> {
    const replicas: Record<string, ReplicaRun> = { Worker: { replicas: 3, cpu: '500m', restartPolicy } };
    for (const [type, r] of Object.entries(style.fixed)) replicas[type] = r;
    const job = realJob(name, replicas, {
      // Pods stay after the job ends (their logs are read), the test deletes the job itself.
      spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 }, runPolicy: { cleanPodPolicy: 'None' } },
      env: {
        STEPS: String(steps),
        STEP_SLEEP: style.stepSleep,
        PROGRESS_EVERY: '10',
        CKPT_DIR: '/ckpt',
        FAIL_ONCE: `worker:2:${code}:${FAIL_AT}`,
      },
      script: style.script,
      hostPath: hostScratchDir(`${ns}-${name}`),
    });
    await createTFJob(ns, job);
    // Worker 2 must exist for its failure to be tested: the job is admitted at its maximum on the free node.
    await eventually(
      async () =>
        (await jobPods(ns, name)).filter((p) => p.metadata?.name?.includes('-worker-') && p.status?.phase === 'Running').length === 3,
      { what: `${name}: 3 workers running`, timeoutMs: 300_000, intervalMs: 2_000 },
    );
  }

  /** Runs a test's body and removes its job whatever happened (the next test needs the whole node). */
  async function withJob(name: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } finally {
      await remove(name);
    }
  }

  /** Deletes the job and waits until its pods are gone (the next job needs the node). */
  async function remove(name: string): Promise<void> {
    await deleteTFJob(ns, name, 'Foreground');
    await eventually(async () => (await jobPods(ns, name)).length === 0, { what: `${name} pods gone`, timeoutMs: 180_000 });
  }

  const pod = async (name: string) => coreApi().readNamespacedPod({ namespace: ns, name });

  for (const style of [V1, PSS]) {
    it(`${style.name}, OnFailure: worker 2 exits 137, is restarted in its pod with the same TF_CONFIG, the job finishes its planned steps`, async () => {
      const name = `${style.key}-onfailure`;
      const steps = 600;
      await withJob(name, async () => {
        await start(style, name, 'OnFailure', 137, steps);
        const worker2 = `${name}-worker-2`;
        // The kubelet restarts the container in place: the pod's lastState shows the exit.
        const restarted = await eventually(
          async () => {
            const status = (await pod(worker2)).status?.containerStatuses?.[0];
            return status !== undefined && status.restartCount >= 1 && status.lastState?.terminated !== undefined ? status : false;
          },
          { what: `${worker2} restarted after its exit`, timeoutMs: 360_000, intervalMs: 2_000 },
        );
        expect(restarted.lastState?.terminated?.exitCode).toBe(137);
        expect(await podLog(ns, worker2, true)).toContain(`FAIL_ONCE: worker 2 exits 137`);
        // The restarted process runs with the TF_CONFIG the failed one had.
        const current = await eventually(async () => tfConfigInLog(await podLog(ns, worker2)) ?? false, {
          what: `${worker2} restarted process started`,
          timeoutMs: 180_000,
          intervalMs: 2_000,
        });
        expect(current).toBe(tfConfigInLog(await podLog(ns, worker2, true)));
        if (style === PSS) {
          // The coordinator took worker 2 back once it answered again.
          await eventually(async () => /task:2 has been recovered/.test(await podLog(ns, style.chiefPod(name))) || false, {
            what: 'the chief logs worker 2 recovered',
            timeoutMs: 300_000,
            intervalMs: 2_000,
          });
        }
        await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 600_000 });
        expect(doneStep(await podLog(ns, style.chiefPod(name)))).toBeGreaterThanOrEqual(steps);
        expect(givenUp(await getTFJob(ns, name))).toBeUndefined();
      });
    }, 900_000);
  }

  it(`${PSS.name}, ExitCode: worker 2 exits 137, the operator re-creates it under its name with the same TF_CONFIG, the chief logs its recovery, the job finishes`, async () => {
    const name = 'pss-exitcode';
    const steps = 600;
    await withJob(name, async () => {
      await start(PSS, name, 'ExitCode', 137, steps);
      const worker2 = `${name}-worker-2`;
      const first = await eventually(async () => (await jobPods(ns, name)).find((p) => p.metadata?.name === worker2) ?? false, {
        what: `${worker2} created`,
        timeoutMs: 180_000,
      });
      const events = await waitForJobEvents(
        ns,
        name,
        (es) =>
          es.some((e) => e.reason === 'ExitedWithCode' && e.message?.includes(worker2) === true) &&
          es.some((e) => e.reason === 'TFJobRestarting'),
        'worker 2 exited and the job restarting',
        360_000,
      );
      expect(events.find((e) => e.reason === 'ExitedWithCode' && e.message?.includes(worker2) === true)?.message).toContain('137');
      const second = await eventually(
        async () => {
          const p = (await jobPods(ns, name)).find((x) => x.metadata?.name === worker2);
          return p !== undefined && p.metadata?.uid !== first.metadata?.uid && p.metadata?.deletionTimestamp === undefined ? p : false;
        },
        { what: `${worker2} created again`, timeoutMs: 180_000, intervalMs: 2_000 },
      );
      expect(tfConfigOfPod(second)).toBe(tfConfigOfPod(first));
      await eventually(async () => /task:2 has been recovered/.test(await podLog(ns, PSS.chiefPod(name))) || false, {
        what: 'the chief logs worker 2 recovered',
        timeoutMs: 300_000,
        intervalMs: 2_000,
      });
      await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 600_000 });
      expect(doneStep(await podLog(ns, PSS.chiefPod(name)))).toBeGreaterThanOrEqual(steps);
    });
  }, 900_000);

  for (const style of [V1, PSS]) {
    it(`${style.name}, Never: worker 2 exits 1, its slot is given up, the job goes on with 2 workers and Succeeds`, async () => {
      const name = `${style.key}-never`;
      const steps = 300;
      await withJob(name, async () => {
        await start(style, name, 'Never', 1, steps);
        const worker2 = `${name}-worker-2`;
        const events = await waitForJobEvents(
          ns,
          name,
          (es) => es.some((e) => e.reason === 'WorkerSlotGivenUp'),
          'WorkerSlotGivenUp',
          360_000,
        );
        expect(events.find((e) => e.reason === 'WorkerSlotGivenUp')?.message).toContain('Worker 2');
        const job = await getTFJob(ns, name);
        expect(givenUp(job)).toEqual([2]);
        expect((job.status?.scheduling as { workers?: { max?: number } } | undefined)?.workers?.max).toBe(2);
        // Training goes on past the failure on the workers left.
        const atFailure = lastStep(await podLog(ns, style.chiefPod(name)));
        await eventually(async () => lastStep(await podLog(ns, style.chiefPod(name))) > Math.max(atFailure, FAIL_AT) || false, {
          what: 'training goes on after the failure',
          timeoutMs: 300_000,
          intervalMs: 2_000,
        });
        await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 600_000 });
        expect(doneStep(await podLog(ns, style.chiefPod(name)))).toBeGreaterThanOrEqual(steps);
        // The failed pod is kept for its logs; no worker ever took its place or another slot.
        const failed = await pod(worker2);
        expect(failed.status?.phase).toBe('Failed');
        expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
        expect(await podLog(ns, worker2)).toContain('FAIL_ONCE: worker 2 exits 1');
        const workerNames = (await jobPods(ns, name)).map((p) => p.metadata?.name).filter((n) => n?.includes('-worker-'));
        expect(workerNames.sort()).toEqual([`${name}-worker-0`, `${name}-worker-1`, worker2]);
      });
    }, 900_000);
  }
});
