// tf-operator's normal path, as a client sees it: pods and headless services named
// <job>-<type>-<index> with the training.kubeflow.org labels, one controller owner reference,
// TF_CONFIG byte for byte, conditions Created → Running → Succeeded (Running flipped to False), the
// replica statuses, and tf-operator's event reasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import {
  coreApi,
  conditionTypes,
  createTFJob,
  eventReasons,
  getTFJob,
  jobPods,
  tfjob,
  waitForCondition,
  waitForPods,
} from '../../support/tfjob.ts';

describe('TFJob normal path (tf-operator compatible mode)', () => {
  let ns: string;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('tfjob-normal');
    operator = await startOperator(ns, ['--policy', 'tf-operator']);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
  });

  it('creates pods and services like tf-operator and reaches Succeeded when worker-0 succeeds', async () => {
    const created = await createTFJob(ns, tfjob('dist', { PS: 1, Worker: 2 }));
    const pods = await waitForPods(ns, 'dist', 3);
    expect(pods.map((p) => p.metadata?.name)).toEqual(['dist-ps-0', 'dist-worker-0', 'dist-worker-1']);

    const worker0 = pods[1]!;
    expect(worker0.metadata?.labels).toMatchObject({
      'training.kubeflow.org/operator-name': 'tfjob-controller',
      'training.kubeflow.org/job-name': 'dist',
      'training.kubeflow.org/replica-type': 'worker',
      'training.kubeflow.org/replica-index': '0',
      'training.kubeflow.org/job-role': 'master',
    });
    expect(pods[2]!.metadata?.labels?.['training.kubeflow.org/job-role']).toBeUndefined();
    expect(worker0.metadata?.ownerReferences).toEqual([
      { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'dist', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    const tf = worker0.spec?.containers.find((c) => c.name === 'tensorflow');
    expect(tf?.ports).toEqual([{ name: 'tfjob-port', containerPort: 2222, protocol: 'TCP' }]);
    expect(tf?.env?.find((e) => e.name === 'TF_CONFIG')?.value).toBe(
      `{"cluster":{"ps":["dist-ps-0.${ns}.svc:2222"],"worker":["dist-worker-0.${ns}.svc:2222","dist-worker-1.${ns}.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}`,
    );
    expect(worker0.spec?.restartPolicy).toBe('Never');
    // Placed by the default scheduler, exactly like tf-operator.
    expect(worker0.spec?.schedulerName).toBe('default-scheduler');

    const svc = await coreApi().readNamespacedService({ name: 'dist-worker-1', namespace: ns });
    expect(svc.spec?.clusterIP).toBe('None');
    expect(svc.spec?.selector).toEqual({
      'training.kubeflow.org/operator-name': 'tfjob-controller',
      'training.kubeflow.org/job-name': 'dist',
      'training.kubeflow.org/replica-type': 'worker',
      'training.kubeflow.org/replica-index': '1',
    });
    expect(svc.spec?.ports?.map((p) => ({ name: p.name, port: p.port }))).toEqual([{ name: 'tfjob-port', port: 2222 }]);

    const running = await waitForCondition(ns, 'dist', 'Running');
    expect(conditionTypes(running)).toEqual(['Created=True', 'Running=True']);
    expect(running.status?.conditions?.[1]).toMatchObject({ reason: 'TFJobRunning', message: `TFJob ${ns}/dist is running.` });
    expect(running.status?.startTime).toBeDefined();
    // Running comes with the first running worker, as in tf-operator; on a loaded machine the other
    // pods may start a moment later, so the counts are awaited, not read off that first status.
    await eventually(
      async () => {
        const rs = (await getTFJob(ns, 'dist')).status?.replicaStatuses;
        return rs?.PS?.active === 1 && rs.Worker?.active === 2;
      },
      { what: 'every replica active' },
    );

    await exitPod(ns, 'dist-worker-0', 0);
    const done = await waitForCondition(ns, 'dist', 'Succeeded');
    expect(conditionTypes(done)).toEqual(['Created=True', 'Running=False', 'Succeeded=True']);
    expect(done.status?.conditions?.[2]).toMatchObject({ reason: 'TFJobSucceeded', message: `TFJob ${ns}/dist successfully completed.` });
    expect(done.status?.completionTime).toBeDefined();
    // cleanPodPolicy defaults to None: every pod stays; active counts fold into succeeded.
    await eventually(
      async () => {
        const job = await getTFJob(ns, 'dist');
        return job.status?.replicaStatuses?.Worker?.succeeded === 2 && job.status.replicaStatuses.PS?.succeeded === 1;
      },
      { what: 'active folded into succeeded' },
    );
    expect(await jobPods(ns, 'dist')).toHaveLength(3);
    const reasons = await eventReasons(ns, 'dist');
    expect(reasons).toEqual(expect.arrayContaining(['SuccessfulCreatePod', 'SuccessfulCreateService', 'TFJobSucceeded', 'ExitedWithCode']));
  });

  it('runs a single-worker job without TF_CONFIG (not distributed)', async () => {
    await createTFJob(ns, tfjob('local', { Worker: 1 }));
    const [pod] = await waitForPods(ns, 'local', 1);
    expect(pod?.spec?.containers[0]?.env?.some((e) => e.name === 'TF_CONFIG') ?? false).toBe(false);
    await exitPod(ns, 'local-worker-0', 0);
    await waitForCondition(ns, 'local', 'Succeeded');
  });
});
