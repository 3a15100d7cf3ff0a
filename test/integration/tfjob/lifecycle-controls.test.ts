// cleanPodPolicy, suspend/resume, live scale up/down of replicas and recreation of deleted pods.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import {
  coreApi,
  conditionTypes,
  customApi,
  createTFJob,
  getTFJob,
  jobPods,
  patchTFJob,
  tfjob,
  waitForCondition,
  waitForPods,
  waitForEventReasons,
} from '../../support/tfjob.ts';

const names = async (ns: string, job: string) =>
  (await jobPods(ns, job)).filter((p) => p.metadata?.deletionTimestamp === undefined).map((p) => p.metadata?.name);
const serviceNames = async (ns: string, job: string) =>
  (await coreApi().listNamespacedService({ namespace: ns, labelSelector: `training.kubeflow.org/job-name=${job}` })).items
    .map((s) => s.metadata?.name)
    .sort();

describe('TFJob cleanup, suspend and scaling', () => {
  let ns: string;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('tfjob-controls');
    operator = await startOperator(ns, ['--policy', 'tf-operator']);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
  });

  it.each([
    ['All', []],
    ['Running', ['clean-running-worker-0']],
    ['None', ['clean-none-ps-0', 'clean-none-worker-0']],
  ] as const)('cleanPodPolicy %s keeps exactly the expected pods after success', async (policy, kept) => {
    const name = `clean-${policy.toLowerCase()}`;
    await createTFJob(ns, tfjob(name, { PS: 1, Worker: 1 }, { runPolicy: { cleanPodPolicy: policy } }));
    await waitForPods(ns, name, 2);
    await exitPod(ns, `${name}-worker-0`, 0);
    await waitForCondition(ns, name, 'Succeeded');
    await eventually(async () => JSON.stringify(await names(ns, name)) === JSON.stringify(kept), {
      what: `pods left by cleanPodPolicy ${policy}`,
    });
    // Settled: nothing else is deleted later.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await names(ns, name)).toEqual(kept);
  });

  it("suspend deletes pods and services and resume recreates them, with tf-operator's condition sequence", async () => {
    await createTFJob(ns, tfjob('susp', { Chief: 1, Worker: 1 }));
    await waitForPods(ns, 'susp', 2);
    const running = await waitForCondition(ns, 'susp', 'Running');
    const startTime = running.status?.startTime;
    expect(conditionTypes(running)).toEqual(['Created=True', 'Running=True']);

    await patchTFJob(ns, 'susp', { spec: { runPolicy: { suspend: true } } });
    const suspended = await waitForCondition(ns, 'susp', 'Suspended');
    expect(conditionTypes(suspended)).toEqual(['Created=True', 'Running=False', 'Suspended=True']);
    expect(suspended.status?.conditions?.[1]).toMatchObject({ reason: 'TFJobSuspended', message: 'TFJob susp is suspended.' });
    await eventually(async () => (await names(ns, 'susp')).length === 0 && (await serviceNames(ns, 'susp')).length === 0, {
      what: 'pods and services deleted',
    });
    expect((await getTFJob(ns, 'susp')).status?.startTime).toBe(startTime);

    await patchTFJob(ns, 'susp', { spec: { runPolicy: { suspend: false } } });
    await waitForPods(ns, 'susp', 2);
    const resumed = await waitForCondition(ns, 'susp', 'Running');
    expect(conditionTypes(resumed)).toEqual(['Created=True', 'Suspended=False', 'Running=True']);
    expect(resumed.status?.conditions?.[1]).toMatchObject({ reason: 'TFJobResumed', message: 'TFJob susp is resumed.' });
    expect(await serviceNames(ns, 'susp')).toEqual(['susp-chief-0', 'susp-worker-0']);
    await waitForEventReasons(ns, 'susp', ['TFJobSuspended', 'TFJobResumed']);
  });

  it('a status written by someone else never makes the State fall back to Created', async () => {
    // A user with rights on tfjobs/status replaces the conditions with a bare Succeeded.
    await createTFJob(ns, tfjob('faked', { Worker: 1 }));
    await waitForCondition(ns, 'faked', 'Running');
    // The operator may write the status meanwhile: a replace from an older read gets 409; read again.
    await eventually(
      async () => {
        const job = await getTFJob(ns, 'faked');
        const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await customApi().replaceNamespacedCustomObjectStatus({
          group: 'kubeflow.org',
          version: 'v1',
          plural: 'tfjobs',
          namespace: ns,
          name: 'faked',
          body: {
            ...job,
            status: {
              ...job.status,
              conditions: [{ type: 'Succeeded', status: 'True', reason: 'Faked', lastUpdateTime: at, lastTransitionTime: at }],
            },
          },
        });
        return true;
      },
      { what: 'the status replaced by another writer' },
    );
    await eventually(
      async () => JSON.stringify(conditionTypes(await getTFJob(ns, 'faked'))) === JSON.stringify(['Created=True', 'Succeeded=True']),
      {
        what: 'Created restored at the front, Succeeded still last',
      },
    );
  });

  it('a job created suspended has [Created, Suspended] and no pods', async () => {
    await createTFJob(ns, tfjob('born-suspended', { Worker: 1 }, { runPolicy: { suspend: true } }));
    const job = await waitForCondition(ns, 'born-suspended', 'Suspended');
    expect(conditionTypes(job)).toEqual(['Created=True', 'Suspended=True']);
    expect(job.status?.startTime).toBeUndefined();
    expect(await names(ns, 'born-suspended')).toEqual([]);
  });

  it('scales workers up and down when replicas change, removing the highest indices', async () => {
    await createTFJob(ns, tfjob('scale', { PS: 1, Worker: 1 }));
    await waitForPods(ns, 'scale', 2);
    await patchTFJob(ns, 'scale', { spec: { tfReplicaSpecs: { Worker: { replicas: 3 } } } });
    await waitForPods(ns, 'scale', 4);
    expect(await names(ns, 'scale')).toEqual(['scale-ps-0', 'scale-worker-0', 'scale-worker-1', 'scale-worker-2']);
    await patchTFJob(ns, 'scale', { spec: { tfReplicaSpecs: { Worker: { replicas: 1 } } } });
    await eventually(async () => JSON.stringify(await names(ns, 'scale')) === JSON.stringify(['scale-ps-0', 'scale-worker-0']), {
      what: 'scale down',
    });
    await eventually(async () => JSON.stringify(await serviceNames(ns, 'scale')) === JSON.stringify(['scale-ps-0', 'scale-worker-0']), {
      what: 'services scaled down',
    });
    // Scale-down is not a failure.
    const job = await getTFJob(ns, 'scale');
    expect(conditionTypes(job)).toEqual(['Created=True', 'Running=True']);
  });

  it('recreates a pod deleted by hand under the same name', async () => {
    await createTFJob(ns, tfjob('recreate', { PS: 1, Worker: 2 }, { restartPolicy: 'OnFailure' }));
    const pods = await waitForPods(ns, 'recreate', 3);
    const victim = pods.find((p) => p.metadata?.name === 'recreate-worker-1')!;
    await coreApi().deleteNamespacedPod({ name: 'recreate-worker-1', namespace: ns });
    await eventually(
      async () => {
        const p = (await jobPods(ns, 'recreate')).find((x) => x.metadata?.name === 'recreate-worker-1');
        return p !== undefined && p.metadata?.uid !== victim.metadata?.uid && p.status?.phase === 'Running';
      },
      { what: 'worker-1 recreated' },
    );
    const job = await getTFJob(ns, 'recreate');
    expect(job.status?.conditions?.some((c) => c.type === 'Failed')).toBe(false);
  });
});
