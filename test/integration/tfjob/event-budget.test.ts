// tf-operator's client-go recorder writes at most 25 events per job (spam filter: burst 25, then one
// per 5 minutes) and drops the rest, its final TFJobSucceeded included. Ours keeps the same filter
// against floods, but a job's end is never held back (docs/differences-from-tf-operator.md): a job
// that has used up its 25 events still gets its TFJobSucceeded event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, jobEvents, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';

describe('event budget of one job', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('event-budget');
    pool = await createPool('evbudget', 1, { cpu: '8', memory: '16Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('a job past its 25 events still records TFJobSucceeded', async () => {
    // 22 pods and services (ten event objects each once aggregated), then ten workers' exits: > 25.
    const job = tfjob('noisy', { PS: 10, Worker: 12 }, { restartPolicy: 'Never', resources: { cpu: '100m' } });
    await createTFJob(ns, onPool(job, pool));
    await waitForPods(ns, 'noisy', 22);
    await waitForCondition(ns, 'noisy', 'Running', { timeoutMs: 60_000 });
    for (let i = 1; i < 12; i++) await exitPod(ns, `noisy-worker-${i}`, 0);
    await eventually(async () => (await jobEvents(ns, 'noisy')).length >= 25, {
      what: "the job's 25 events written",
      timeoutMs: 60_000,
    });
    await exitPod(ns, 'noisy-worker-0', 0);
    await waitForCondition(ns, 'noisy', 'Succeeded', { timeoutMs: 60_000 });
    const events = await eventually(
      async () => {
        const all = await jobEvents(ns, 'noisy');
        return all.some((e) => e.reason === 'TFJobSucceeded') ? all : false;
      },
      { what: 'the TFJobSucceeded event', timeoutMs: 30_000 },
    );
    // The budget was spent before the end: 25 other event objects, so only the exemption let it through.
    expect(events.filter((e) => e.reason !== 'TFJobSucceeded').length).toBeGreaterThanOrEqual(25);
    expect(events.find((e) => e.reason === 'TFJobSucceeded')?.message).toContain('successfully completed');
  }, 180_000);
});
