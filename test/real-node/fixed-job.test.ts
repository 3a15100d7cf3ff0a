// A fixed-size PS/worker job of real TensorFlow (tf.compat.v1 between-graph, the Kubeflow dist-mnist
// style) trains to its planned global step and Succeeds, under tf-operator compatible mode (pods to
// kube-scheduler) and under `ours` (placed by the operator); `ours` reads the real job's progress
// lines into status.progress while it trains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kube.ts';
import { coreApi, createTFJob, getTFJob, waitForCondition } from '../support/tfjob.ts';
import { doneStep, podLog, realJob, realNodeName, realNodeSkipped, statusOf, startRealNodeRun, type RealNodeRun } from './support.ts';

// ~30 s of training with two workers (0.2 s per local step): several progress reads while it runs.
const STEPS = 300;

function psJob(name: string) {
  return realJob(
    name,
    { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 2, cpu: '500m' } },
    { env: { STEPS: String(STEPS), STEP_SLEEP: '0.2', PROGRESS_EVERY: '10' } },
  );
}

for (const policy of ['tf-operator', 'ours'] as const) {
  describe.skipIf(realNodeSkipped() !== undefined)(`a fixed PS/worker job of real TensorFlow (--policy ${policy})`, () => {
    let run: RealNodeRun;
    let ns: string;
    beforeAll(async () => {
      run = await startRealNodeRun(`real-fixed-${policy}`, policy, ['--progress-period', '3s']);
      ns = run.ns;
    });
    afterAll(async () => {
      await run.stop();
    });

    it('trains to its planned step on the real node and Succeeds', async () => {
      await createTFJob(ns, psJob('dist'));
      // Worker 1 trains too (read while it runs: cleanPodPolicy Running deletes it once worker 0 is done).
      await eventually(async () => /TFJOB_PROGRESS/.test(await podLog(ns, 'dist-worker-1')), {
        what: 'worker 1 reporting steps',
        timeoutMs: 240_000,
        intervalMs: 1_000,
      });
      if (policy === 'ours') {
        const progress = await eventually(
          async () => {
            const p = statusOf(await getTFJob(ns, 'dist')).progress;
            return p?.step !== undefined && p.step > 0 ? p : false;
          },
          { what: 'status.progress from the real log', timeoutMs: 240_000, intervalMs: 1_000 },
        );
        expect(progress.step).toBeGreaterThan(0);
      }
      const job = await waitForCondition(ns, 'dist', 'Succeeded', { timeoutMs: 360_000 });
      expect(job.status?.replicaStatuses?.Worker?.succeeded).toBeGreaterThanOrEqual(1);
      const log = await podLog(ns, 'dist-worker-0');
      expect(doneStep(log)).toBeGreaterThanOrEqual(STEPS);
      // Both workers trained against the PS by their service names (TF_CONFIG through cluster DNS).
      expect(log).toContain(`dist-ps-0.${ns}.svc:2222`);
      const pod = await coreApi().readNamespacedPod({ name: 'dist-worker-0', namespace: ns });
      expect(pod.spec?.nodeName).toBe(realNodeName());
    });
  });
}
