// In-place CPU resize of a converged job's workers end to end (--resize-converged-cpu): the job's
// log, served by kwok through `pods/log`, shows it reached its target; the operator lowers its
// worker's CPU limit through the API server's `pods/resize` subresource (Kubernetes 1.36 here), says
// so in an event, and leaves the request, and so every scheduler's accounting, as it was. Without a
// kubelet that supports resize the API server refuses it, and the job says why in a warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_PREFIX } from '../../../src/progress/signals/index.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog } from '../../support/pod-logs.ts';
import { reportResizeSupport } from '../../support/resize-support.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { coreApi, createTFJob, jobEvents, tfjob, waitForPods } from '../../support/tfjob.ts';

const report = (step: number, accuracy: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: accuracy, name: 'val_accuracy', higherIsBetter: true, target: 0.9 })}`;

describe('in-place CPU resize of converged workers (--resize-converged-cpu)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('resize');
    pool = await createPool('resize', 1, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--progress-period',
      '1s',
      '--resize-converged-cpu',
      '0.5',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  /**
   * A one-worker job (cpu request 500m, limit 2) whose log shows it reached the target it reported:
   * Converged at once. `resizable`: its node's kubelet reports container resources (supports resize).
   */
  const converged = async (name: string, resizable: boolean): Promise<void> => {
    const container = {
      name: 'tensorflow',
      image: 'example.invalid/tf:2.15',
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } },
    };
    await createTFJob(ns, onPool(tfjob(name, { Worker: 1 }, { template: { containers: [container] } }), pool));
    await waitForPods(ns, name, 1);
    if (resizable) await reportResizeSupport(ns, `${name}-worker-0`);
    const log = await servePodLog(ns, `${name}-worker-0`);
    log.write(['Epoch 1/10', report(100, 0.5), ...Array.from({ length: 12 }, (_, i) => report(200 + i * 100, 0.95))]);
  };
  const eventsOf = async (name: string, reason: string): Promise<string[]> =>
    (await jobEvents(ns, name)).filter((e) => e.reason === reason).map((e) => e.message ?? '');

  it("lowers a converged job's worker CPU limit in place, keeps its request, and says so", async () => {
    await converged('done', true);

    const resources = await eventually(
      async () => {
        const pod = await coreApi().readNamespacedPod({ namespace: ns, name: 'done-worker-0' });
        const r = pod.spec?.containers.find((c) => c.name === 'tensorflow')?.resources;
        return r?.limits?.['cpu'] === '1' ? r : false;
      },
      { timeoutMs: 30_000, what: 'the worker CPU limit lowered to 1 (0.5 × 2)' },
    );
    expect(resources.requests).toEqual({ cpu: '500m', memory: '1Gi' });
    expect(resources.limits).toEqual({ cpu: '1', memory: '1Gi' });
    const resized = await eventually(
      async () => {
        const notes = await eventsOf('done', 'CpuResized');
        return notes.length > 0 ? notes : false;
      },
      { timeoutMs: 30_000, what: 'the CpuResized event' },
    );
    expect(resized[0]).toBe('Lowered the CPU limit of done-worker-0 to 1000m in place: the job has converged (--resize-converged-cpu)');
    expect(await eventsOf('done', 'CpuResizeFailed')).toEqual([]);
  });
  it('says in a warning when the node cannot resize, and leaves the pod as it was', async () => {
    await converged('old-node', false);
    const warning = await eventually(
      async () => {
        const notes = await eventsOf('old-node', 'CpuResizeFailed');
        return notes.length > 0 ? notes[0]! : false;
      },
      { timeoutMs: 30_000, what: 'the CpuResizeFailed warning' },
    );
    expect(warning).toBe(
      'In-place CPU resize of old-node-worker-0 to 1000m refused (HTTP 422): Pod "old-node-worker-0" is invalid: spec: Forbidden: Pod running on node without support for resize',
    );
    const pod = await coreApi().readNamespacedPod({ namespace: ns, name: 'old-node-worker-0' });
    expect(pod.spec?.containers[0]?.resources?.limits).toEqual({ cpu: '2', memory: '1Gi' });
  });
});
