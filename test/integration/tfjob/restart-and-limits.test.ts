// Restart policies, ExitCode classification, backoffLimit, activeDeadlineSeconds and TTL, each
// driven through real pods on kwok nodes (kwok plays the kubelet: see lab/local-cluster/kwok-stages.yaml).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { apiStatus, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import {
  conditionTypes,
  createTFJob,
  eventReasons,
  getTFJob,
  jobPods,
  recordConditions,
  tfjob,
  waitForCondition,
  waitForPods,
} from '../../support/tfjob.ts';

describe('TFJob restart policies and run-policy limits', () => {
  let ns: string;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('tfjob-restart');
    operator = await startOperator(ns, ['--policy', 'tf-operator']);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
  });

  it("Never: a failed worker fails the job with tf-operator's message", async () => {
    await createTFJob(ns, tfjob('never', { Worker: 2 }, { restartPolicy: 'Never' }));
    await waitForPods(ns, 'never', 2);
    await exitPod(ns, 'never-worker-1', 1);
    const failed = await waitForCondition(ns, 'never', 'Failed');
    expect(failed.status?.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      reason: 'TFJobFailed',
      message: `TFJob ${ns}/never has failed because 1 Worker replica(s) failed.`,
    });
    expect(conditionTypes(failed)).toEqual(['Created=True', 'Running=False', 'Failed=True']);
    expect(failed.status?.replicaStatuses?.Worker).toMatchObject({ active: 1, failed: 1 });
  });

  it('OnFailure: the kubelet restarts the container in place and the job keeps running', async () => {
    await createTFJob(ns, tfjob('onfailure', { Worker: 1, PS: 1 }, { restartPolicy: 'OnFailure' }));
    await waitForPods(ns, 'onfailure', 2);
    await exitPod(ns, 'onfailure-worker-0', 3);
    await eventually(
      async () =>
        (await jobPods(ns, 'onfailure')).find((p) => p.metadata?.name === 'onfailure-worker-0')?.status?.containerStatuses?.[0]
          ?.restartCount === 1,
      { what: 'in-place restart' },
    );
    const job = await getTFJob(ns, 'onfailure');
    expect(conditionTypes(job)).toEqual(['Created=True', 'Running=True']);
    await exitPod(ns, 'onfailure-worker-0', 0);
    await waitForCondition(ns, 'onfailure', 'Succeeded');
  });

  it('ExitCode: a retryable code (130) recreates the pod and shows Restarting; a permanent one (1) fails the job', async () => {
    await createTFJob(ns, tfjob('exitcode', { Worker: 2 }, { restartPolicy: 'ExitCode' }));
    const [first] = await waitForPods(ns, 'exitcode', 2);
    expect(first?.spec?.restartPolicy).toBe('Never');
    const uid = (await jobPods(ns, 'exitcode')).find((p) => p.metadata?.name === 'exitcode-worker-1')?.metadata?.uid;
    const recorder = await recordConditions(ns, 'exitcode');
    await exitPod(ns, 'exitcode-worker-1', 130);
    // Same name, new pod.
    await eventually(
      async () => {
        const pod = (await jobPods(ns, 'exitcode')).find((p) => p.metadata?.name === 'exitcode-worker-1');
        return pod !== undefined && pod.metadata?.uid !== uid && pod.status?.phase === 'Running';
      },
      { what: 'worker-1 recreated' },
    );
    await waitForCondition(ns, 'exitcode', 'Running');
    recorder.stop();
    // Restarting replaced Running while the pod was recreated, then Running replaced Restarting.
    expect(recorder.history).toContainEqual(['Created=True', 'Restarting=True']);
    expect(recorder.history.at(-1)).toEqual(['Created=True', 'Running=True']);
    const events = await eventReasons(ns, 'exitcode');
    expect(events).toContain('TFJobRestarting');

    await exitPod(ns, 'exitcode-worker-0', 1);
    const failed = await waitForCondition(ns, 'exitcode', 'Failed');
    expect(failed.status?.conditions?.at(-1)?.message).toBe('job "exitcode" is failing because "Worker" replica(s) failed.');
  });

  it('backoffLimit: container restarts beyond the limit fail the job', async () => {
    await createTFJob(
      ns,
      tfjob('backoff', { Worker: 1 }, { restartPolicy: 'OnFailure', runPolicy: { backoffLimit: 1, cleanPodPolicy: 'All' } }),
    );
    await waitForPods(ns, 'backoff', 1);
    await exitPod(ns, 'backoff-worker-0', 2);
    const failed = await waitForCondition(ns, 'backoff', 'Failed');
    expect(failed.status?.conditions?.at(-1)?.message).toBe('Job backoff has failed because it has reached the specified backoff limit');
    // cleanPodPolicy All is honoured on this path.
    await eventually(async () => (await jobPods(ns, 'backoff')).length === 0, { what: 'pods cleaned up' });
  });

  it('activeDeadlineSeconds: a quiet job fails at its deadline, without any other event', async () => {
    await createTFJob(ns, tfjob('deadline', { Worker: 1 }, { runPolicy: { activeDeadlineSeconds: 3 } }));
    await waitForPods(ns, 'deadline', 1);
    const started = Date.now();
    const failed = await waitForCondition(ns, 'deadline', 'Failed', { timeoutMs: 20_000 });
    expect(failed.status?.conditions?.at(-1)?.message).toBe('Job deadline has failed because it was active longer than specified deadline');
    // Failed within a few seconds of the deadline (tf-operator would wait for an unrelated event).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('ttlSecondsAfterFinished: the job is deleted after its TTL', async () => {
    await createTFJob(ns, tfjob('ttl', { Worker: 1 }, { runPolicy: { ttlSecondsAfterFinished: 2 } }));
    await waitForPods(ns, 'ttl', 1);
    await exitPod(ns, 'ttl-worker-0', 0);
    await waitForCondition(ns, 'ttl', 'Succeeded');
    await eventually(
      async () => {
        try {
          await getTFJob(ns, 'ttl');
          return false;
        } catch (err) {
          return apiStatus(err) === 404;
        }
      },
      { what: 'TFJob deleted by TTL', timeoutMs: 20_000 },
    );
  });
});
