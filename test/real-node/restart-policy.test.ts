// A failing replica of a real container follows its restart policy (both policies): OnFailure restarts
// the container in place and the job Succeeds; ExitCode deletes and recreates the pod after a
// retryable code (143, what python/tfjob_progress.py's SIGTERM handler exits with) and the job
// Succeeds; ExitCode with a permanent code (1) fails the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreApi, createTFJob, getTFJob, waitForCondition, waitForJobEvents } from '../support/tfjob.ts';
import { hostScratchDir, realJob, realNodeSkipped, startRealNodeRun, type RealNodeRun } from './support.ts';

/** Exits with `code` the first time (a marker on a volume that outlives the pod), 0 after that. */
function failOnce(code: number): string[] {
  return [
    'sh',
    '-c',
    `if [ -e /ckpt/failed-once ]; then echo second run; exit 0; fi; touch /ckpt/failed-once; echo failing with ${code}; exit ${code}`,
  ];
}

for (const policy of ['tf-operator', 'ours'] as const) {
  describe.skipIf(realNodeSkipped() !== undefined)(`restart policies of a real container (--policy ${policy})`, () => {
    let run: RealNodeRun;
    let ns: string;
    beforeAll(async () => {
      run = await startRealNodeRun(`real-restart-${policy}`, policy);
      ns = run.ns;
    });
    afterAll(async () => {
      await run.stop();
    });

    it('OnFailure: the container is restarted in place and the job Succeeds', async () => {
      await createTFJob(
        ns,
        realJob(
          'onfailure',
          { Worker: { replicas: 1, cpu: '100m', restartPolicy: 'OnFailure', command: failOnce(3) } },
          { hostPath: hostScratchDir(`${ns}-onfailure`) },
        ),
      );
      await waitForCondition(ns, 'onfailure', 'Succeeded', { timeoutMs: 120_000 });
      const pod = await coreApi().readNamespacedPod({ name: 'onfailure-worker-0', namespace: ns });
      expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    });

    it('ExitCode, retryable 143: the pod is recreated and the job Succeeds', async () => {
      await createTFJob(
        ns,
        realJob(
          'retryable',
          { Worker: { replicas: 1, cpu: '100m', restartPolicy: 'ExitCode', command: failOnce(143) } },
          { hostPath: hostScratchDir(`${ns}-retryable`) },
        ),
      );
      await waitForCondition(ns, 'retryable', 'Succeeded', { timeoutMs: 120_000 });
      // tf-operator's path: the exit is reported, the pod deleted and created again (the Restarting
      // condition it passed through is replaced by Running, as in tf-operator).
      const events = await waitForJobEvents(
        ns,
        'retryable',
        (es) => es.some((e) => e.reason === 'ExitedWithCode') && es.some((e) => e.reason === 'SuccessfulDeletePod'),
        'ExitedWithCode and SuccessfulDeletePod',
      );
      expect(events.find((e) => e.reason === 'ExitedWithCode')?.message).toContain('143');
      const pod = await coreApi().readNamespacedPod({ name: 'retryable-worker-0', namespace: ns });
      // A new pod, not a restarted container: the template's restartPolicy is Never under ExitCode.
      expect(pod.spec?.restartPolicy).toBe('Never');
      expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    });

    it('ExitCode, permanent 1: the job Fails', async () => {
      await createTFJob(
        ns,
        realJob(
          'permanent',
          { Worker: { replicas: 1, cpu: '100m', restartPolicy: 'ExitCode', command: failOnce(1) } },
          { hostPath: hostScratchDir(`${ns}-permanent`) },
        ),
      );
      const job = await waitForCondition(ns, 'permanent', 'Failed', { timeoutMs: 120_000 });
      expect(job.status?.conditions?.find((c) => c.type === 'Failed')?.message).toMatch(/permanent|exit/i);
      expect((await getTFJob(ns, 'permanent')).status?.replicaStatuses?.Worker?.failed).toBe(1);
    });
  });
}
