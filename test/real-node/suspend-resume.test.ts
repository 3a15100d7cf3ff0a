// Suspension and resumption of real TensorFlow (policy ours): a suspendable job that has held more
// than --demote-after of service is suspended whole when a newcomer cannot be admitted otherwise; its
// chief wrote checkpoints to a volume that outlives the pods; once the newcomer is done it is admitted
// again and training resumes from the checkpoint (the restored global step is not 0), then finishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kube.ts';
import { createTFJob, livePods, waitForCondition, waitForEventReasons } from '../support/tfjob.ts';
import { doneStep, hostScratchDir, lastStep, podLog, realJob, realNodeSkipped, startRealNodeRun, type RealNodeRun } from './support.ts';

const STEPS = 500;

/** The global step the chief's session opened at ("session open after Xs, global step N"). */
function openedAt(log: string): number | undefined {
  const m = /session open after [\d.]+s, global step (\d+)/.exec(log);
  return m === null ? undefined : Number(m[1]);
}

describe.skipIf(realNodeSkipped() !== undefined)('suspend and resume of real TensorFlow from its checkpoint (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-suspend', 'ours', ['--demote-after', '3s', '--scale-out-cooldown', '1s']);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  it('resumes from the checkpoint after a suspension and finishes its planned steps', async () => {
    await createTFJob(
      ns,
      realJob(
        'long',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 2, cpu: '700m' } },
        {
          spec: { elasticPolicy: { minReplicas: 2, maxReplicas: 2 } },
          annotations: { 'tfjob-operator.kubeflow.org/suspendable': 'true' },
          env: { STEPS: String(STEPS), STEP_SLEEP: '0.1', CKPT_DIR: '/ckpt' },
          hostPath: hostScratchDir(`${ns}-long`),
        },
      ),
    );
    const firstOpen = await eventually(async () => openedAt(await podLog(ns, 'long-worker-0')) ?? false, {
      what: 'long opened its session',
      timeoutMs: 180_000,
      intervalMs: 1_000,
    });
    // Before the first checkpoint (step 20): worker 1 may already have run a step or two when the chief reads it.
    expect(firstOpen).toBeLessThan(20);
    await eventually(async () => lastStep(await podLog(ns, 'long-worker-0')) >= 60 || false, {
      what: 'long past its first checkpoints',
      timeoutMs: 240_000,
      intervalMs: 1_000,
    });

    await createTFJob(
      ns,
      realJob(
        'newcomer',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '800m' } },
        { env: { STEPS: '100', STEP_SLEEP: '0.05' } },
      ),
    );
    await waitForEventReasons(ns, 'long', ['Suspended'], 120_000);
    await eventually(async () => (await livePods(ns, 'long')).length === 0, { what: 'long has no pods', timeoutMs: 120_000 });
    await waitForCondition(ns, 'newcomer', 'Succeeded', { timeoutMs: 300_000 });

    // Admitted again: the new chief restores the checkpoint instead of starting over.
    const resumedAt = await eventually(
      async () => {
        const pods = await livePods(ns, 'long');
        if (!pods.some((p) => p.metadata?.name === 'long-worker-0')) return false;
        return openedAt(await podLog(ns, 'long-worker-0')) ?? false;
      },
      { what: 'long resumed', timeoutMs: 240_000, intervalMs: 1_000 },
    );
    expect(resumedAt).toBeGreaterThanOrEqual(20);
    await waitForCondition(ns, 'long', 'Succeeded', { timeoutMs: 480_000 });
    expect(doneStep(await podLog(ns, 'long-worker-0'))).toBeGreaterThanOrEqual(STEPS);
  });
});
