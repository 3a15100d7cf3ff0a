// Fault: a kubelet refuses a pod we placed (OutOfcpu), as a real kubelet does when another
// scheduler's pod reached the node first. The node here is one kwok does not manage: the test plays
// its kubelet (node status and lease, the admission verdict written through the pod's status
// subresource, as a kubelet writes it), so nothing overwrites the verdict. The job must go on: the
// refused pod deleted and placed again once there is room, an Event and a metric naming the reason,
// never a Failed job, no restart counted, and never a second placement onto the full node.
import { CoordinationV1Api, CoreV1Api, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL_NODE_POOL } from '../../../src/api/v1/constants.ts';
import {
  adminKubeConfig,
  clusterState,
  createForeignPod,
  createNamespace,
  deleteNamespace,
  eventually,
  exitPod,
  uniqueName,
} from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { addPoolNodes, onPool, type Pool } from '../../support/pool.ts';
import { sumOf } from '../../support/prometheus.ts';
import { createTFJob, getTFJob, hasCondition, jobPods, tfjob, waitForCondition, waitForJobEvents } from '../../support/tfjob.ts';

const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

/** A Ready node with no kwok annotation: no fake kubelet runs its pods; the test answers for it. */
function unmanagedNode(name: string, pool: string): V1Node {
  const capacity = { cpu: '4', memory: '16Gi', pods: '110' };
  const now = new Date();
  return {
    metadata: { name, labels: { [LABEL_NODE_POOL]: pool, 'kubernetes.io/hostname': name } },
    spec: { taints: [{ key: LABEL_NODE_POOL, value: pool, effect: 'NoSchedule' }] },
    status: {
      capacity,
      allocatable: capacity,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'test kubelet', lastHeartbeatTime: now, lastTransitionTime: now },
      ],
    },
  };
}

/** The node's lease, renewed as a kubelet renews it, so the node lifecycle controller keeps it Ready. */
function keepLease(node: string): () => void {
  const api = adminKubeConfig().makeApiClient(CoordinationV1Api);
  const namespace = 'kube-node-lease';
  const renew = async () => {
    const spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: new Date() };
    try {
      const lease = await api.readNamespacedLease({ name: node, namespace });
      await api.replaceNamespacedLease({ name: node, namespace, body: { ...lease, spec: { ...lease.spec, ...spec } } });
    } catch {
      await api.createNamespacedLease({ namespace, body: { metadata: { name: node }, spec } }).catch(() => undefined);
    }
  };
  void renew();
  const timer = setInterval(() => void renew(), 5_000);
  return () => clearInterval(timer);
}

describe('fault: a kubelet refuses a placed pod (OutOfcpu)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('deletes the refused pod and places it again, with an Event and a metric; the job never fails', async () => {
    const ns = await createNamespace('fault-reject');
    cleanups.push(() => deleteNamespace(ns));
    const poolName = uniqueName('frej');
    const refusing = `${poolName}-refusing`;
    await core().createNode({ body: unmanagedNode(refusing, poolName) });
    const stopLease = keepLease(refusing);
    cleanups.push(async () => {
      stopLease();
      await core()
        .deleteNode({ name: refusing })
        .catch(() => undefined);
    });
    const pool: Pool = {
      name: poolName,
      nodes: [refusing],
      operatorFlags: ['--node-selector', `${LABEL_NODE_POOL}=${poolName}`],
      delete: async () => undefined,
    };
    const operator = await OperatorChild.start('reject', clusterState().kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      ...pool.operatorFlags,
    ]);
    cleanups.push(async () => void (await operator.kill()));
    await operator.ready();

    // Restart policy Never (the default): before this rule, a refused worker 0 failed the job.
    const name = 'rejected';
    await createTFJob(ns, onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '3', memory: '1Gi' } }), pool));
    const first = await eventually(
      async () => {
        const pod = (await jobPods(ns, name))[0];
        return pod?.spec?.nodeName === refusing ? pod : false;
      },
      { timeoutMs: 120_000, what: 'the worker placed on the refusing node' },
    );

    // Another scheduler's pod reached the node first; the kubelet admits it and refuses ours.
    const foreign = await createForeignPod(ns, 'other-scheduler-pod', refusing, { cpu: '2' });
    cleanups.push(async () => {
      await core()
        .deleteNamespacedPod({ namespace: ns, name: foreign.metadata!.name!, gracePeriodSeconds: 0 })
        .catch(() => undefined);
    });
    const verdict: V1Pod = {
      ...first,
      status: {
        ...first.status,
        phase: 'Failed',
        reason: 'OutOfcpu',
        message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
      },
    };
    await core().replaceNamespacedPodStatus({ namespace: ns, name: first.metadata!.name!, body: verdict });

    // The refused pod goes; nothing is placed on the full node again (2 + 3 > 4).
    const seenOnRefusing = new Set<string>();
    const watchRefusing = setInterval(() => {
      void jobPods(ns, name)
        .then((pods) => pods.filter((p) => p.spec?.nodeName === refusing).forEach((p) => seenOnRefusing.add(p.metadata!.uid!)))
        .catch(() => undefined);
    }, 200);
    cleanups.push(async () => clearInterval(watchRefusing));
    await eventually(async () => !(await jobPods(ns, name)).some((p) => p.metadata?.uid === first.metadata?.uid), {
      timeoutMs: 120_000,
      what: 'the refused pod deleted',
    });
    const events = await waitForJobEvents(
      ns,
      name,
      (es) => es.some((e) => e.reason === 'PodRejectedByKubelet'),
      'the rejection event',
      60_000,
    );
    const event = events.find((e) => e.reason === 'PodRejectedByKubelet')!;
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(refusing);
    expect(event.message).toContain('OutOfcpu');
    expect(hasCondition(await getTFJob(ns, name), 'Failed')).toBe(false);

    // Room appears elsewhere: the replica is placed there and runs; the job finishes normally.
    const [roomy] = await addPoolNodes(pool, 'roomy', 1, { cpu: '4', memory: '16Gi' });
    cleanups.push(() => deleteTestNode(roomy!));
    const second = await eventually(
      async () => {
        const pod = (await jobPods(ns, name))[0];
        return pod?.status?.phase === 'Running' ? pod : false;
      },
      { timeoutMs: 120_000, what: 'the worker placed again and Running' },
    );
    expect(second.spec?.nodeName).toBe(roomy);
    clearInterval(watchRefusing);
    expect([...seenOnRefusing]).toEqual([first.metadata!.uid!]);

    const rejections = sumOf(await operator.metrics(), 'tfjob_operator_pod_rejections_total', { reason: 'OutOfcpu' });
    expect(rejections).toBe(1);

    await exitPod(ns, second.metadata!.name!, 0);
    const done = await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 120_000 });
    expect(hasCondition(done, 'Failed')).toBe(false);
    expect((done.status as { podRecreations?: unknown } | undefined)?.podRecreations).toBeUndefined();
    expect(operator.running, operator.tail()).toBe(true);
  }, 600_000);
});

async function deleteTestNode(name: string): Promise<void> {
  await core()
    .deleteNode({ name })
    .catch(() => undefined);
}
