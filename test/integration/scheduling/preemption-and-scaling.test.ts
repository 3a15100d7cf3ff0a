// Priority preemption by scale-in and scale-out into idle capacity, end to end: real API server,
// kwok nodes, the operator with the `ours` policy placing pods itself (spec.nodeName).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulingV1Api } from '@kubernetes/client-node';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import {
  createTFJob,
  elasticJob,
  getTFJob,
  waitForJobEvents,
  exitLivePods,
  livePods,
  waitForCondition,
  waitForEventReasons,
} from '../../support/tfjob.ts';

describe('priority preemption and elastic scaling (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const highClass = uniqueName('high');

  beforeAll(async () => {
    ns = await createNamespace('sched-preempt');
    // Two nodes of 4 cpu: 8 cpu in all.
    pool = await createPool('preempt', 2, { cpu: '4', memory: '16Gi' });
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: highClass }, value: 1000, description: 'test: high' } });
    operator = await startOperator(ns, ['--policy', 'ours', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .deletePriorityClass({ name: highClass })
      .catch(() => undefined);
  });

  it('scales a running job out to its maximum on idle capacity, placing every pod itself', async () => {
    await createTFJob(
      ns,
      onPool(elasticJob('light', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 1, max: 6 }), pool),
    );
    const pods = await eventually(
      async () => {
        const p = await livePods(ns, 'light');
        return p.filter((x) => x.metadata?.name?.includes('-worker-')).length === 6 && p.every((x) => x.status?.phase === 'Running')
          ? p
          : false;
      },
      { what: 'light at 6 workers', timeoutMs: 60_000 },
    );
    // Pinned by the operator, not by kube-scheduler.
    for (const p of pods) {
      expect(p.spec?.nodeName).toMatch(new RegExp(`^${pool.name}-`));
      expect(p.metadata?.annotations?.['tfjob-operator.kubeflow.org/placed-by']).toBe('ours');
    }
    const job = await eventually(
      async () => {
        const j = await getTFJob(ns, 'light');
        return j.status?.scheduling?.workersSummary === '6/1/6' ? j : false;
      },
      { what: 'status 6/1/6' },
    );
    expect(job.status?.scheduling).toMatchObject({ queue: 'Running', workers: { current: 6, min: 1, max: 6 } });
    // Workers beyond the minimum are a scale-out, whether taken at admission or in a later pass:
    // counted in workers, each told in a ScaledOut event.
    expect(job.status?.scheduling?.scaleOuts).toBe(5);
    const events = await waitForJobEvents(
      ns,
      'light',
      (es) => ['Admitted', 'ScaledOut'].every((r) => es.some((e) => e.reason === r)),
      'events',
    );
    const scaledOut = events.filter((e) => e.reason === 'ScaledOut').map((e) => e.message ?? '');
    expect(scaledOut.join('\n')).toMatch(/Scaled out by \d worker\(s\) into idle capacity/);
  });

  it('lets a heavier (higher-priority) job preempt workers of the lighter one down to its minimum, and the lighter one grows back afterwards', async () => {
    await createTFJob(
      ns,
      onPool(
        elasticJob('heavy', {
          ps: { cpu: '1', memory: '1Gi' },
          worker: { cpu: '1', memory: '1Gi' },
          min: 2,
          max: 2,
          priorityClass: highClass,
        }),
        pool,
      ),
    );
    await waitForCondition(ns, 'heavy', 'Running', { timeoutMs: 60_000 });
    const heavyPods = await livePods(ns, 'heavy');
    expect(heavyPods).toHaveLength(3);
    const lightPods = await eventually(
      async () => {
        const p = (await livePods(ns, 'light')).filter((x) => x.metadata?.name?.includes('-worker-'));
        return p.length === 4 ? p : false;
      },
      { what: 'light scaled in to 4 workers (8 cpu − heavy 3 − light PS 1)' },
    );
    // Never below the minimum, never the PS, and the lowest indices stay (dense from 0).
    expect(lightPods.map((p) => p.metadata?.name).sort()).toEqual(['light-worker-0', 'light-worker-1', 'light-worker-2', 'light-worker-3']);
    expect((await livePods(ns, 'light')).some((p) => p.metadata?.name === 'light-ps-0')).toBe(true);
    const preempted = (await waitForJobEvents(ns, 'light', (es) => es.some((e) => e.reason === 'Preempted'), 'a Preempted event')).filter(
      (e) => e.reason === 'Preempted',
    );
    expect(preempted.length).toBeGreaterThan(0);
    expect(preempted[0]?.message).toContain(`to admit ${ns}/heavy`);
    // What decided is said: the PriorityClass, not the weights.
    expect(preempted[0]?.message).toContain(`(priority class ${highClass} (1000) above no priority class (0))`);
    const light = await getTFJob(ns, 'light');
    // And the victim's status tells what was last done to it.
    expect(light.status?.scheduling).toMatchObject({ queue: 'Running', reason: 'Preempted' });
    expect(light.status?.scheduling?.message).toContain(`to admit ${ns}/heavy`);
    // Preemption is not a failure: the light job keeps running.
    expect(light.status?.conditions?.some((c) => c.type === 'Failed')).toBe(false);
    expect(light.status?.scheduling?.preemptions).toBe(2);

    // The heavy job finishes: its capacity goes back to the light job (scale-out to its maximum).
    await exitPod(ns, 'heavy-worker-0', 0);
    await waitForCondition(ns, 'heavy', 'Succeeded');
    await exitLivePods(ns, 'heavy', 0);
    await eventually(async () => (await livePods(ns, 'light')).filter((x) => x.metadata?.name?.includes('-worker-')).length === 6, {
      what: 'light back to 6 workers',
      timeoutMs: 60_000,
    });
    await waitForEventReasons(ns, 'light', ['ScaledOut']);
  });
});
