// A TFJob cannot raise its own priority or pick its own node:
// - priority comes only from PriorityClasses the admin created, named in
//   spec.runPolicy.schedulingPolicy.priorityClass: a class that does not exist counts as 0, and a
//   pod template's priorityClassName (even of a real, high class) does not rank the job at all;
// - in priority mode the operator places every pod itself: a template's nodeName is overridden by
//   the node the scheduler chose (a user cannot put a replica on a node outside the operator's
//   pool or past the queue); a template naming another scheduler leaves the pod to that scheduler,
//   without the template's nodeName (a user picks a scheduler, never a node).
// The waiting message of the head of the queue shows the priority the scheduler used
// (`weight 0.42 (priority 1000)`), which is what these tests read.
import { SchedulingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, deleteTFJob, getTFJob, jobPods, tfjob, waitForCondition, waitForPods, type TestTFJob } from '../../support/tfjob.ts';

describe('security: priority and placement cannot be raised or chosen by a TFJob', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const adminClass = uniqueName('admin-high');

  beforeAll(async () => {
    ns = await createNamespace('sec-priority');
    pool = await createPool('secprio', 1, { cpu: '4', memory: '16Gi' });
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: adminClass }, value: 1000, description: 'test: admin-created high class' } });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .deletePriorityClass({ name: adminClass })
      .catch(() => undefined);
  });

  const oneWorker = (name: string, extra: { runPolicy?: Record<string, unknown>; template?: Record<string, unknown> } = {}): TestTFJob =>
    onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '1', memory: '1Gi' }, ...extra }), pool);

  /** The head-of-queue message of a job left waiting (the pool is full). */
  async function waitingMessage(job: TestTFJob): Promise<string> {
    await createTFJob(ns, job);
    const waiting = await eventually(
      async () => {
        const j = await getTFJob(ns, job.metadata.name);
        const message = j.status?.scheduling?.message;
        return j.status?.scheduling?.queue === 'Waiting' && typeof message === 'string' && message.includes('weight') ? message : false;
      },
      { what: `${job.metadata.name} waiting with a head-of-queue message`, timeoutMs: 60_000 },
    );
    await deleteTFJob(ns, job.metadata.name);
    await eventually(
      async () =>
        getTFJob(ns, job.metadata.name).then(
          () => false,
          () => true,
        ),
      { what: `${job.metadata.name} gone` },
    );
    return waiting;
  }

  it('ranks by admin PriorityClasses only', async () => {
    // A fixed-size job fills the pool; it cannot be preempted (no elastic workers), so every job
    // below waits, and being alone in the queue, gets the head's message with its priority.
    await createTFJob(
      ns,
      onPool(tfjob('blocker', { Worker: 4 }, { resources: { cpu: '1', memory: '1Gi' }, runPolicy: { cleanPodPolicy: 'All' } }), pool),
    );
    await waitForPods(ns, 'blocker', 4);

    const ghost = await waitingMessage(
      oneWorker('ghost-class', { runPolicy: { schedulingPolicy: { priorityClass: 'no-such-class-anywhere' } } }),
    );
    expect(ghost).not.toMatch(/priority/);

    const viaTemplate = await waitingMessage(oneWorker('template-class', { template: { priorityClassName: adminClass } }));
    expect(viaTemplate).not.toMatch(/priority/);

    // The control: the same job naming the admin's class in its run policy does rank with it.
    const admin = await waitingMessage(oneWorker('admin-class', { runPolicy: { schedulingPolicy: { priorityClass: adminClass } } }));
    expect(admin).toMatch(/priority 1000/);

    await exitPod(ns, 'blocker-worker-0', 0);
    await waitForCondition(ns, 'blocker', 'Succeeded', { timeoutMs: 60_000 });
    await eventually(async () => (await jobPods(ns, 'blocker')).length === 0, { what: 'blocker cleaned up', timeoutMs: 60_000 });
  });

  it("overrides a template's nodeName: the operator's node wins", async () => {
    // nodeName points at a shared node, outside the pool the operator places on.
    await createTFJob(ns, oneWorker('pinned', { template: { nodeName: 'shared-0' } }));
    const [pod] = await waitForPods(ns, 'pinned', 1);
    expect(pool.nodes).toContain(pod?.spec?.nodeName);
    expect(pod?.metadata?.annotations?.['tfjob-operator.kubeflow.org/placed-by']).toBe('ours');
    // Created bound: no scheduler ever decided where it runs.
    expect(pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.reason).not.toBe('Unschedulable');
  });

  it("drops a template's nodeName when the template names another scheduler: that scheduler decides", async () => {
    await createTFJob(ns, oneWorker('named', { template: { nodeName: 'shared-0', schedulerName: 'evil-scheduler' } }));
    await eventually(async () => (await jobPods(ns, 'named')).length === 1, { what: 'the pod of named created', timeoutMs: 60_000 });
    const [pod] = await jobPods(ns, 'named');
    // No such scheduler runs here, so the pod stays unbound; neither the template nor we chose its node.
    expect(pod?.spec?.nodeName).toBeUndefined();
    expect(pod?.spec?.schedulerName).toBe('evil-scheduler');
    expect(pod?.metadata?.annotations?.['tfjob-operator.kubeflow.org/placed-by']).toBeUndefined();
    await deleteTFJob(ns, 'named');
  });
});
