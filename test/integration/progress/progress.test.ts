// Training progress read from a running job's log through the API server (`pods/log`, served by kwok
// as a kubelet would): `status.progress` follows the job's phase, each phase change is an event, and a
// job whose log says nothing has no progress and no warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_PREFIX } from '../../../src/progress/signals/index.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog } from '../../support/pod-logs.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, jobEvents, tfjob, waitForPods } from '../../support/tfjob.ts';

const report = (step: number, accuracy: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: accuracy, name: 'val_accuracy', higherIsBetter: true, target: 0.9 })}`;

interface ProgressStatus {
  phase?: string;
  metric?: string;
  metricName?: string;
  step?: number;
  plannedEpochs?: number;
  plannedSteps?: number;
  fractionDone?: string;
  eta?: string;
  plan?: string;
}

describe('training progress from the job log (--progress-period)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('progress');
    pool = await createPool('progress', 1, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--progress-period',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const progressOf = async (name: string) => ((await getTFJob(ns, name)).status as { progress?: ProgressStatus } | undefined)?.progress;

  it('publishes the phase in status.progress as the log shows it, with an event per change', async () => {
    await createTFJob(ns, onPool(tfjob('learner', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForPods(ns, 'learner', 1);
    const log = await servePodLog(ns, 'learner-worker-0');
    log.write(['Epoch 1/10', report(100, 0.5)]);

    const first = await eventually(
      async () => {
        const p = await progressOf('learner');
        return p?.phase === 'Progressing' ? p : false;
      },
      { timeoutMs: 30_000, what: 'status.progress Progressing' },
    );
    expect(first).toMatchObject({ metricName: 'val_accuracy', metric: '0.5', step: 100 });

    // The job reaches the target it reported: Converged at once, without waiting for the curve to flatten.
    log.write(Array.from({ length: 12 }, (_, i) => report(200 + i * 100, 0.95)));
    const converged = await eventually(
      async () => {
        const p = await progressOf('learner');
        return p?.phase === 'Converged' ? p : false;
      },
      { timeoutMs: 30_000, what: 'status.progress Converged' },
    );
    expect(converged.step).toBe(1300);

    const phases = await eventually(
      async () => {
        const notes = (await jobEvents(ns, 'learner')).filter((e) => e.reason === 'ProgressPhaseChanged').map((e) => e.message ?? '');
        return notes.some((n) => n.startsWith('Progress phase Converged')) ? notes : false;
      },
      { timeoutMs: 30_000, what: 'the phase events' },
    );
    expect(phases.some((n) => n.startsWith('Progress phase Progressing: val_accuracy 0.5'))).toBe(true);
  });

  it('shows the plan Keras declares (Epoch k/N): epochs and steps planned, share done, ETA from the measured rate', async () => {
    await createTFJob(ns, onPool(tfjob('planner', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForPods(ns, 'planner', 1);
    const log = await servePodLog(ns, 'planner-worker-0');
    // Three epochs of 50 steps, 30 s apart (log timestamps): 100 steps in 60 s. The times lie ahead of
    // the reader's first look at the job, past the rate's settling time after it (20 s of the 5 min window).
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + 30_000;
    for (const k of [1, 2, 3]) {
      log.write([`Epoch ${k}/10`, `50/50 - 1s - loss: ${1 - k / 10} - accuracy: ${0.5 + k / 20}`], new Date(t0 + (k - 1) * 30_000));
    }
    const p = await eventually(
      async () => {
        const q = await progressOf('planner');
        return q?.eta !== undefined && q.step === 150 ? q : false;
      },
      { timeoutMs: 30_000, what: 'status.progress with a plan and an ETA' },
    );
    expect(p).toMatchObject({ plannedEpochs: 10, plannedSteps: 500, fractionDone: '0.3', plan: '3/10 epochs (30%)' });
    // 350 steps left at 100 steps per 60 s: 210 s after the last epoch end.
    expect(Date.parse(p.eta!)).toBe(t0 + 60_000 + 210_000);
  });

  it('leaves a job whose log reports nothing without progress and without a warning', async () => {
    await createTFJob(ns, onPool(tfjob('silent', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForPods(ns, 'silent', 1);
    const log = await servePodLog(ns, 'silent-worker-0');
    log.write(['starting', 'step 1 done']);
    // A few rounds at the 1 s period.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await progressOf('silent')).toBeUndefined();
    expect((await jobEvents(ns, 'silent')).filter((e) => e.reason === 'ProgressUnreadable' || e.reason === 'ProgressPhaseChanged')).toEqual(
      [],
    );
  });
});
