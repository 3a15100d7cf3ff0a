// Queue state survives the operator: SIGKILL it mid-run, restart it, and it neither forgets a waiting
// job's first-enqueue time nor creates a pod twice; every job still completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, exitLivePods, getTFJob, jobEvents, livePods, waitForCondition } from '../../support/tfjob.ts';

interface PodEvent {
  readonly type: string;
  readonly name: string;
  readonly uid: string;
}

describe('operator restart (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: OperatorChild | undefined;
  const events: PodEvent[] = [];
  let stopWatch: (() => void) | undefined;

  beforeAll(async () => {
    ns = await createNamespace('sched-restart');
    pool = await createPool('restart', 1, { cpu: '4', memory: '16Gi' });
    const controller = await new Watch(adminKubeConfig()).watch(
      `/api/v1/namespaces/${ns}/pods`,
      {},
      (type: string, pod: V1Pod) => {
        events.push({ type, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' });
      },
      () => undefined,
    );
    stopWatch = () => {
      controller.abort();
    };
  });
  afterAll(async () => {
    stopWatch?.();
    await operator?.kill();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const start = () =>
    OperatorChild.start('restart', clusterState().kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scale-out-cooldown',
      '0s',
      '--scheduling-interval',
      '1s',
      ...pool.operatorFlags,
    ]);

  it('keeps t_j and placements across a SIGKILL, creates no duplicate pods, and completes every job', async () => {
    operator = await start();
    await createTFJob(
      ns,
      onPool(elasticJob('first', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 3, max: 3 }), pool),
    );
    await eventually(async () => (await livePods(ns, 'first')).filter((p) => p.status?.phase === 'Running').length === 4, {
      what: 'first running',
      timeoutMs: 60_000,
    });
    // The node is full: "second" waits.
    await createTFJob(
      ns,
      onPool(elasticJob('second', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 1, max: 2 }), pool),
    );
    const waiting = await eventually(
      async () => {
        const j = await getTFJob(ns, 'second');
        return j.status?.scheduling?.queue === 'Waiting' && j.status.scheduling.enqueueTime !== undefined ? j : false;
      },
      { what: 'second waiting with an enqueue time' },
    );
    const enqueueTime = waiting.status?.scheduling?.enqueueTime;
    // Its Waiting event, once: the restarted operator must not say it again (its status already does).
    const waitMessage = await eventually(
      async () => {
        const m = (await getTFJob(ns, 'second')).status?.scheduling?.message;
        return typeof m === 'string' ? m : false;
      },
      { what: 'second has a waiting reason' },
    );
    const waitingEvents = async () =>
      (await jobEvents(ns, 'second'))
        .filter((e) => e.reason === 'Waiting' && e.message === waitMessage)
        .reduce((n, e) => n + (e.count ?? 1), 0);
    await eventually(async () => (await waitingEvents()) > 0, { what: 'the Waiting event of second' });
    const waitingBefore = await waitingEvents();
    const podsBefore = (await livePods(ns, 'first')).map((p) => `${p.metadata?.name ?? ''}/${p.metadata?.uid ?? ''}`).sort();

    // Kill -9 mid-run, change things while it is down, restart.
    expect((await operator.kill('SIGKILL')).signal).toBe('SIGKILL');
    await createTFJob(
      ns,
      onPool(elasticJob('third', { ps: { cpu: '500m', memory: '1Gi' }, worker: { cpu: '500m', memory: '1Gi' }, min: 1, max: 1 }), pool),
    );
    operator = await start();
    // The restarted operator sees the same world: same pods (no re-creation), same waiting time.
    await eventually(async () => (await getTFJob(ns, 'third')).status?.scheduling?.queue === 'Waiting', {
      what: 'third enqueued by the new operator',
      timeoutMs: 60_000,
    });
    expect((await livePods(ns, 'first')).map((p) => `${p.metadata?.name ?? ''}/${p.metadata?.uid ?? ''}`).sort()).toEqual(podsBefore);
    expect((await getTFJob(ns, 'second')).status?.scheduling?.enqueueTime).toBe(enqueueTime);
    // The new leader has decided about third (so about second too); its events are written within
    // moments. The same Waiting reason of second is not repeated.
    await eventually(async () => (await getTFJob(ns, 'third')).status?.scheduling?.reason !== undefined, {
      what: 'third has a waiting reason from the new operator',
      timeoutMs: 30_000,
    });
    await new Promise((r) => setTimeout(r, 2_000));
    if ((await getTFJob(ns, 'second')).status?.scheduling?.message === waitMessage) expect(await waitingEvents()).toBe(waitingBefore);

    // Finish everything, in order, as room appears.
    await exitPod(ns, 'first-worker-0', 0);
    await waitForCondition(ns, 'first', 'Succeeded', { timeoutMs: 60_000 });
    await exitLivePods(ns, 'first', 0);
    for (const name of ['second', 'third']) {
      await waitForCondition(ns, name, 'Running', { timeoutMs: 60_000 });
      await exitPod(ns, `${name}-worker-0`, 0);
      await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 60_000 });
      await exitLivePods(ns, name, 0);
    }
    // The waiting job kept its original t_j through admission.
    expect((await getTFJob(ns, 'second')).status?.scheduling?.enqueueTime).toBe(enqueueTime);

    // No pod name was ever created twice, and no two pods with one name ever coexisted.
    const added = events.filter((e) => e.type === 'ADDED');
    const byName = new Map<string, Set<string>>();
    for (const e of added) byName.set(e.name, (byName.get(e.name) ?? new Set()).add(e.uid));
    const duplicated = [...byName].filter(([, uids]) => uids.size > 1).map(([name]) => name);
    expect(duplicated).toEqual([]);
  });
});
