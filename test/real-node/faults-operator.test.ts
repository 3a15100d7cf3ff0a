// Faults of the operator process on real pods (issue 39 item 4). The operator runs as a child process
// (`tfjob-operator run`, as deployed) so it can be SIGKILLed and started again; an invariant monitor
// (test/support/invariants.ts) watches the namespace throughout: no two live pods of one replica, no
// pod or service deleted without a reason the operator may have, no over-commit of the real node, no
// orphans at the end.
// - SIGKILL during a scale-in: a higher-priority job arrives on the full node; the operator is killed
//   the moment the first worker is marked for removal or deleted, and started again. The elastic job
//   finishes its planned global steps and Succeeds; its services are exactly its live pods.
// - A job deleted mid-scale-out: the moment the first new worker pod appears, the TFJob is deleted.
//   Nothing of it is left (pods, services), nothing is created for it afterwards, and the operator's
//   work queues drain.
import { SchedulingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_REMOVAL, LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import { InvariantMonitor } from '../support/invariants.ts';
import { adminKubeConfig, createNamespace, eventually, uniqueName } from '../support/kube.ts';
import type { OperatorChild } from '../support/operator-child.ts';
import { coreApi, createTFJob, deleteTFJob, jobEvents, livePods, waitForCondition } from '../support/tfjob.ts';
import {
  createTrainers,
  firstPod,
  deleteNamespaceAndWait,
  doneStep,
  hostScratchDir,
  podsAndServices,
  podLog,
  realJob,
  realNodeName,
  realNodeSkipped,
  startOperatorProcess,
  waitForServicesMatchingPods,
  waitForStep,
} from './support.ts';

const STEPS = 600;
const OPERATOR_FLAGS = ['--scale-out-cooldown', '2s'];

const workers = async (ns: string, job: string) => (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-'));

describe.skipIf(realNodeSkipped() !== undefined)('operator faults on real TensorFlow pods', () => {
  let ns: string;
  let monitor: InvariantMonitor;
  let operator: OperatorChild;
  const operators: OperatorChild[] = [];
  const priorityClass = uniqueName('real-fault-high');
  const scheduling = () => adminKubeConfig().makeApiClient(SchedulingV1Api);

  beforeAll(async () => {
    await scheduling().createPriorityClass({ body: { metadata: { name: priorityClass }, value: 100_000 } });
    ns = await createNamespace('real-fault-op');
    await createTrainers(ns);
    monitor = await InvariantMonitor.start({ kubeConfig: adminKubeConfig(), namespace: ns, nodes: [realNodeName()] });
    operator = await startOperatorProcess('rn-fault-op-0', ns, OPERATOR_FLAGS);
    operators.push(operator);
  });
  afterAll(async () => {
    monitor.stop();
    for (const o of operators) await o.kill('SIGKILL');
    await deleteNamespaceAndWait(ns);
    await scheduling()
      .deletePriorityClass({ name: priorityClass })
      .catch(() => undefined);
  });

  it('SIGKILL at the first removal of a scale-in: the elastic job finishes its planned steps; no pod or service lost or doubled', async () => {
    const name = 'elastic';
    await createTFJob(
      ns,
      realJob(
        name,
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 3, cpu: '500m' } },
        {
          spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
          env: { STEPS: String(STEPS), STEP_SLEEP: '0.2', PROGRESS_EVERY: '10', CKPT_DIR: '/ckpt' },
          hostPath: hostScratchDir(`${ns}-${name}`),
        },
      ),
    );
    await eventually(async () => (await workers(ns, name)).length === 3, { what: '3 workers', timeoutMs: 180_000 });
    await waitForStep(ns, `${name}-worker-0`, 30);
    expect(await waitForServicesMatchingPods(ns, name)).toHaveLength(4);

    const removal = firstPod(
      ns,
      name,
      (_t, p) => p.metadata?.annotations?.[ANNOTATION_REMOVAL] !== undefined || p.metadata?.deletionTimestamp !== undefined,
    );
    // The urgent job only needs the room: a shell that sleeps, not a second TensorFlow.
    await createTFJob(
      ns,
      realJob(
        'urgent',
        { Worker: { replicas: 1, cpu: '1000m', command: ['sh', '-c', 'sleep 30'] } },
        { spec: { runPolicy: { cleanPodPolicy: 'Running', schedulingPolicy: { priorityClass } } } },
      ),
    );
    const first = await removal;
    const exit = await operator.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    const atKill = await podsAndServices(ns, name);
    process.stderr.write(
      `[real-faults] operator SIGKILLed after ${first.metadata?.name} was marked/deleted; live pods ${atKill.pods.join(',')}; services ${atKill.services.join(',')}\n`,
    );
    operator = await startOperatorProcess('rn-fault-op-1', ns, OPERATOR_FLAGS);
    operators.push(operator);

    await waitForCondition(ns, 'urgent', 'Running', { timeoutMs: 180_000 });
    expect((await workers(ns, name)).length).toBeLessThan(3);
    // The scale-in completed by the new operator: a service for each remaining pod, none for the removed.
    await waitForServicesMatchingPods(ns, name);
    await waitForCondition(ns, 'urgent', 'Succeeded', { timeoutMs: 300_000 });
    await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 480_000 });
    expect(doneStep(await podLog(ns, `${name}-worker-0`))).toBeGreaterThanOrEqual(STEPS);
    expect(operator.running, operator.tail()).toBe(true);
  });

  it('a job deleted mid-scale-out: no pod or service left, nothing created for it afterwards, the work queues drain', async () => {
    const name = 'deleted';
    // A shell holding most of the node, so the elastic job starts below its maximum and scales out once it ends.
    await createTFJob(ns, realJob('blocker', { Worker: { replicas: 1, cpu: '1200m', command: ['sh', '-c', 'sleep 40'] } }));
    await waitForCondition(ns, 'blocker', 'Running', { timeoutMs: 180_000 });
    await createTFJob(
      ns,
      realJob(
        name,
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 3, cpu: '500m' } },
        {
          spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
          env: { STEPS: '1000000', STEP_SLEEP: '0.2', PROGRESS_EVERY: '10' },
        },
      ),
    );
    await waitForCondition(ns, name, 'Running', { timeoutMs: 180_000 });
    const before = (await workers(ns, name)).map((p) => p.metadata?.name ?? '');
    expect(before.length).toBeLessThan(3);
    const scaleOut = firstPod(
      ns,
      name,
      (t, p) => t === 'ADDED' && p.metadata?.name?.includes('-worker-') === true && !before.includes(p.metadata.name),
    );
    const added = await scaleOut;
    await deleteTFJob(ns, name);
    process.stderr.write(`[real-faults] ${name} deleted when ${added.metadata?.name} appeared\n`);

    await eventually(
      async () => {
        const left = await podsAndServices(ns, name);
        const all = (await coreApi().listNamespacedPod({ namespace: ns, labelSelector: `${LABEL_JOB_NAME}=${name}` })).items;
        return all.length === 0 && left.services.length === 0;
      },
      { what: `no pod or service of ${name} left`, timeoutMs: 180_000, intervalMs: 1_000 },
    );
    const goneAt = Math.ceil(Date.now() / 1000) * 1000;
    // A later job runs to the end: the operator has handled everything that came before it.
    await createTFJob(ns, realJob('after', { Worker: { replicas: 1, cpu: '100m', command: ['sh', '-c', 'exit 0'] } }));
    await waitForCondition(ns, 'after', 'Succeeded', { timeoutMs: 180_000 });
    await waitForCondition(ns, 'blocker', 'Succeeded', { timeoutMs: 180_000 });

    const left = await podsAndServices(ns, name);
    expect(left).toEqual({ pods: [], services: [] });
    const createdAfter = (await jobEvents(ns, name)).filter(
      (e) => e.reason?.startsWith('SuccessfulCreate') === true && new Date(e.lastTimestamp ?? e.eventTime ?? 0).getTime() > goneAt,
    );
    expect(createdAfter.map((e) => e.message)).toEqual([]);
    await eventually(
      async () => {
        const depth = (await operator.metrics()).filter((s) => s.name === 'workqueue_depth');
        return depth.length > 0 && depth.every((s) => s.value === 0);
      },
      { what: 'every work queue empty', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(operator.running, operator.tail()).toBe(true);

    // The whole file's invariants (both cases), judged at the end.
    const report = await monitor.finish();
    process.stderr.write(`[real-faults] invariants: ${JSON.stringify({ ...report, violations: report.violations.length })}\n`);
    expect(report.violations).toEqual([]);
    expect(report.gaps).toBe(0);
    // The scale-in's removals were judged (the invariants were exercised, not vacuous).
    const removals = Object.keys(report.deletions.byReason).filter(
      (k) => k.startsWith('pod:') && !['pod:cleanup', 'pod:job-deleted'].includes(k),
    );
    expect(removals).not.toEqual([]);
  });
});
