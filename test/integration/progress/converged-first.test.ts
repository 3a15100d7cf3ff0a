// Progress-aware preemption end to end (policy ours, --progress-period): a job whose own log shows it
// has converged is the first to give up workers when a new job arrives, although by weight alone the
// other running job would be; the job that prints nothing keeps its workers and is ranked as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { PROGRESS_PREFIX } from '../../../src/progress/signals/index.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog } from '../../support/pod-logs.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, getTFJob, livePods, waitForCondition, waitForJobEvents } from '../../support/tfjob.ts';

const report = (step: number, accuracy: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: accuracy, name: 'val_accuracy', higherIsBetter: true, target: 0.9 })}`;

const workers = async (ns: string, job: string) =>
  (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-') && p.metadata.deletionTimestamp === undefined).length;

describe('a converged job is scaled in first (ours, --progress-period)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('converged-first');
    // One node of 8 cpu: `converging` (PS 1 + 3 × 1 cpu) and `silent` (PS 1 + 2 × 1.5 cpu) fill it.
    pool = await createPool('converged', 1, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--progress-period',
      '1s',
      // The cool-down would protect the workers just grown for a minute; the test is about the order.
      '--scale-out-cooldown',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('takes the workers of the job whose log says Converged, not those of the lighter job without a signal', async () => {
    const small = { cpu: '1', memory: '1Gi' };
    await createTFJob(ns, onPool(elasticJob('converging', { ps: small, worker: small, min: 1, max: 3 }), pool));
    await createTFJob(ns, onPool(elasticJob('silent', { ps: small, worker: { cpu: '1500m', memory: '1Gi' }, min: 1, max: 2 }), pool));
    await eventually(async () => (await workers(ns, 'converging')) === 3 && (await workers(ns, 'silent')) === 2, {
      what: 'both jobs at their maximum (node full)',
      timeoutMs: 60_000,
    });
    await waitForCondition(ns, 'converging', 'Running', { timeoutMs: 60_000 });

    // The chief-less job reports from worker 0: its smoothed metric passes the target it reported,
    // so it is Converged without waiting for the curve to flatten.
    const log = await servePodLog(ns, 'converging-worker-0');
    log.write(['Epoch 1/10', report(100, 0.6), ...Array.from({ length: 12 }, (_, i) => report(200 + i * 100, 0.95))]);
    await eventually(
      async () =>
        ((await getTFJob(ns, 'converging')).status as { progress?: { phase?: string } } | undefined)?.progress?.phase === 'Converged',
      { what: 'converging: status.progress Converged', timeoutMs: 30_000 },
    );
    // `silent` prints nothing: no progress, ranked by weight as without the feature.
    const silentLog = await servePodLog(ns, 'silent-worker-0');
    silentLog.write(['step 1 done']);

    // A newcomer of converging's shape needs 2 cpu. By weight alone `silent` (1.5 cpu workers) ranks
    // lowest and would lose its worker (freeing 1.5 cpu, not enough; converging outranks the
    // newcomer by arrival and could not be touched). Converged, `converging` ranks lowest instead.
    await createTFJob(ns, onPool(elasticJob('newcomer', { ps: small, worker: small, min: 1, max: 1 }), pool));
    await waitForCondition(ns, 'newcomer', 'Running', { timeoutMs: 60_000 });
    expect(await workers(ns, 'converging')).toBe(1);
    expect(await workers(ns, 'silent')).toBe(2);
    const events = await waitForJobEvents(ns, 'converging', (es) => es.some((e) => e.reason === 'Preempted'), 'converging preempted');
    expect(events.find((e) => e.reason === 'Preempted')?.message).toContain('newcomer');
    expect((await getTFJob(ns, 'silent')).status).not.toHaveProperty('progress');
  });
});
