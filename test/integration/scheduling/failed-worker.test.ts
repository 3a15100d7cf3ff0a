// A failed elastic worker under the operator's scheduler (policy ours), on kwok nodes. The worker pod
// is marked Failed through the status subresource with an exit code, as a kubelet reports a pod it
// gave up on (kwok's stages only act on Pending and Running pods: it leaves a Failed pod alone).
// OnFailure: the operator deletes the pod and creates it again under its name with the same
// TF_CONFIG. Never: the pod is kept, its slot given up (WorkerSlotGivenUp, status.givenUpWorkerSlots,
// the scheduler's maximum one lower), and the scheduler places nothing for it: the room it freed goes
// to the next job in the queue.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import {
  coreApi,
  createTFJob,
  deleteTFJob,
  elasticJob,
  getTFJob,
  jobEvents,
  jobPods,
  livePods,
  waitForCondition,
  waitForJobEvents,
  type TestTFJob,
} from '../../support/tfjob.ts';

const one = { cpu: '1', memory: '1Gi' };

/** An elastic job of 1 PS and 1 to 3 workers (1 cpu each) under `restartPolicy`. */
function job(name: string, restartPolicy: string, pool: Pool): TestTFJob {
  const j = onPool(elasticJob(name, { ps: one, worker: one, min: 1, max: 3 }), pool);
  const specs = (j.spec as { tfReplicaSpecs: Record<string, Record<string, unknown>> }).tfReplicaSpecs;
  specs.Worker = { ...specs.Worker, restartPolicy };
  return j;
}

const tfConfig = (pod: V1Pod | undefined) => pod?.spec?.containers[0]?.env?.find((e) => e.name === 'TF_CONFIG')?.value;
const givenUp = (j: TestTFJob) => (j.status as { givenUpWorkerSlots?: number[] } | undefined)?.givenUpWorkerSlots;
const schedulingOf = (j: TestTFJob) => j.status?.scheduling as { workers?: { current?: number; min?: number; max?: number } } | undefined;

/** Marks the pod Failed with `exitCode` through the status subresource, as a kubelet would. */
async function failPod(namespace: string, name: string, exitCode: number): Promise<void> {
  const pod = await coreApi().readNamespacedPod({ namespace, name });
  const finishedAt = new Date();
  pod.status = {
    ...pod.status,
    phase: 'Failed',
    conditions: (pod.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False' } : c,
    ),
    containerStatuses: (pod.status?.containerStatuses ?? []).map((c) => ({
      ...c,
      ready: false,
      started: false,
      state: { terminated: { exitCode, reason: exitCode === 137 ? 'OOMKilled' : 'Error', startedAt: finishedAt, finishedAt } },
    })),
  };
  await coreApi().replaceNamespacedPodStatus({ namespace, name, body: pod });
}

describe('a failed elastic worker (ours, kwok)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('failed-worker');
    // One node of 4 cpu: PS + 3 workers fill it.
    pool = await createPool('failed-worker', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  async function gone(name: string): Promise<void> {
    await deleteTFJob(ns, name);
    await eventually(async () => (await jobPods(ns, name)).length === 0, { timeoutMs: 60_000, what: `${name} pods gone` });
  }

  async function runningWithThreeWorkers(name: string): Promise<V1Pod> {
    await eventually(async () => (await livePods(ns, name)).filter((p) => p.status?.phase === 'Running').length === 4, {
      timeoutMs: 60_000,
      what: `${name}: PS and 3 workers running`,
    });
    return coreApi().readNamespacedPod({ namespace: ns, name: `${name}-worker-2` });
  }

  it('OnFailure: the failed worker is deleted and created again in its slot, with the same TF_CONFIG', async () => {
    await createTFJob(ns, job('again', 'OnFailure', pool));
    const before = await runningWithThreeWorkers('again');
    await failPod(ns, 'again-worker-2', 137);
    const after = await eventually(
      async () => {
        const p = (await jobPods(ns, 'again')).find((x) => x.metadata?.name === 'again-worker-2');
        return p !== undefined && p.metadata?.uid !== before.metadata?.uid && p.status?.phase === 'Running' ? p : false;
      },
      { timeoutMs: 60_000, what: 'again-worker-2 created again and running' },
    );
    expect(tfConfig(after)).toBe(tfConfig(before));
    expect(tfConfig(after)).toBeDefined();
    await waitForJobEvents(ns, 'again', (es) => es.some((e) => e.reason === 'TFJobRestarting'), 'TFJobRestarting');
    const j = await waitForCondition(ns, 'again', 'Running', { timeoutMs: 60_000 });
    expect(givenUp(j)).toBeUndefined();
    // No other slot was used: workers 0..2, nothing beyond the maximum.
    expect((await livePods(ns, 'again')).map((p) => p.metadata?.name).sort()).toEqual([
      'again-ps-0',
      'again-worker-0',
      'again-worker-1',
      'again-worker-2',
    ]);
    await gone('again');
  });

  it('Never: the slot is given up, the pod kept, and the room it freed goes to the next job, not to a replacement', async () => {
    await createTFJob(ns, job('shrunk', 'Never', pool));
    await runningWithThreeWorkers('shrunk');
    // Admission says ScaledOut too (workers above the minimum): only what comes after the failure counts.
    const placing = async () => (await jobEvents(ns, 'shrunk')).filter((e) => e.reason === 'Placed' || e.reason === 'ScaledOut').length;
    const placingBefore = await placing();
    await failPod(ns, 'shrunk-worker-2', 1);
    const events = await waitForJobEvents(ns, 'shrunk', (es) => es.some((e) => e.reason === 'WorkerSlotGivenUp'), 'WorkerSlotGivenUp');
    expect(events.find((e) => e.reason === 'WorkerSlotGivenUp')).toMatchObject({ type: 'Warning' });
    const j = await eventually(
      async () => {
        const x = await getTFJob(ns, 'shrunk');
        return givenUp(x)?.length === 1 && schedulingOf(x)?.workers?.max === 2 ? x : false;
      },
      { timeoutMs: 30_000, what: 'status says slot 2 is given up and the maximum is 2' },
    );
    expect(givenUp(j)).toEqual([2]);
    expect(schedulingOf(j)?.workers).toEqual({ current: 2, min: 1, max: 2 });
    // The 1 cpu worker 2 held is free: a job needing exactly that is admitted into it.
    await createTFJob(ns, onPool(elasticJob('next', { worker: one, min: 1, max: 1 }), pool));
    await waitForCondition(ns, 'next', 'Running', { timeoutMs: 60_000 });
    // The failed pod is still there, as kwok left it; no worker took its place or another slot, and
    // the scheduler never placed one for the job (it would say Placed or ScaledOut).
    const failed = await coreApi().readNamespacedPod({ namespace: ns, name: 'shrunk-worker-2' });
    expect(failed.status?.phase).toBe('Failed');
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
    expect((await jobPods(ns, 'shrunk')).map((p) => p.metadata?.name).sort()).toEqual([
      'shrunk-ps-0',
      'shrunk-worker-0',
      'shrunk-worker-1',
      'shrunk-worker-2',
    ]);
    expect(await placing()).toBe(placingBefore);
    expect(hasRunning(await getTFJob(ns, 'shrunk'))).toBe(true);
    await gone('next');
    // Deleting the failed pod gives the slot back: worker 2 is created again and the field goes.
    await coreApi().deleteNamespacedPod({ namespace: ns, name: 'shrunk-worker-2' });
    await eventually(
      async () => {
        const p = (await livePods(ns, 'shrunk')).find((x) => x.metadata?.name === 'shrunk-worker-2');
        return p?.status?.phase === 'Running' && givenUp(await getTFJob(ns, 'shrunk')) === undefined;
      },
      { timeoutMs: 60_000, what: 'slot 2 back: worker 2 running again, status field gone' },
    );
    await gone('shrunk');
  });
});

function hasRunning(j: TestTFJob): boolean {
  return (j.status?.conditions ?? []).some((c) => c.type === 'Running' && c.status === 'True');
}
