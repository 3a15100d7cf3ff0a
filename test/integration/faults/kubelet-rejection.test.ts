// Fault: a kubelet refuses a pod the operator placed (OutOfcpu), as a real kubelet does when it
// counts capacity the API does not show. The two refusing nodes are not kwok's: the test plays their
// kubelet (it renews their leases and writes the admission verdict through the pod's status
// subresource, as a kubelet does), so nothing overwrites the verdict. The job must go on: each
// refused pod deleted and its replica placed again, never on a node that refused it (the operator
// sees room there, so only its guard keeps it away), an Event and a metric count per refusal, no
// failure or restart counted, the job's status saying why it waits, and the job runs once a node
// that admits it appears.
import { CoordinationV1Api, CoreV1Api, V1MicroTime, Watch, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { LABEL_NODE_POOL } from '../../../src/api/v1/constants.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { addPoolNodes, deleteTestNodes, onPool, type Pool } from '../../support/pool.ts';
import { sumOf } from '../../support/prometheus.ts';
import { createTFJob, getTFJob, jobPods, recordConditions, tfjob, waitForCondition, waitForJobEvents } from '../../support/tfjob.ts';

const core = () => adminKubeConfig().makeApiClient(CoreV1Api);
const REJECTIONS = 'tfjob_operator_pod_rejections_total';

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

/** Renews the node's lease as its kubelet would, so kube-controller-manager keeps the node Ready. */
function keepLease(node: string): () => void {
  const api = adminKubeConfig().makeApiClient(CoordinationV1Api);
  const namespace = 'kube-node-lease';
  const renew = async () => {
    const spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: new V1MicroTime() };
    try {
      const lease = await api.readNamespacedLease({ name: node, namespace });
      await api.replaceNamespacedLease({ name: node, namespace, body: { ...lease, spec: { ...lease.spec, ...spec } } });
    } catch {
      await api.createNamespacedLease({ namespace, body: { metadata: { name: node }, spec } }).catch(() => undefined);
    }
  };
  void renew();
  const timer = setInterval(() => void renew(), 3_000);
  return () => {
    clearInterval(timer);
  };
}

async function waitNodeReady(name: string): Promise<void> {
  await eventually(
    async () => (await core().readNode({ name })).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    { timeoutMs: 60_000, what: `node ${name} Ready` },
  );
}

/** Every pod of the namespace seen bound to a node, by UID (a watch: none is missed between polls). */
async function watchBindings(ns: string): Promise<{ nodeOf: Map<string, string>; stop: () => void }> {
  const nodeOf = new Map<string, string>();
  const controller = await new Watch(adminKubeConfig()).watch(
    `/api/v1/namespaces/${ns}/pods`,
    {},
    (_type: string, pod: V1Pod) => {
      if (pod.spec?.nodeName) nodeOf.set(pod.metadata!.uid!, pod.spec.nodeName);
    },
    () => undefined,
  );
  return {
    nodeOf,
    stop: () => {
      controller.abort();
    },
  };
}

/** The verdict a kubelet writes when admission fails: Failed, a reason, no container ever started. */
async function refuse(pod: V1Pod): Promise<void> {
  const node = pod.spec!.nodeName!;
  await core().replaceNamespacedPodStatus({
    namespace: pod.metadata!.namespace!,
    name: pod.metadata!.name!,
    body: {
      ...pod,
      status: {
        ...pod.status,
        phase: 'Failed',
        reason: 'OutOfcpu',
        message: `Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000 (${node})`,
      },
    },
  });
}

describe('fault: kubelets refuse placed pods (OutOfcpu)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('deletes each refused pod and places it again elsewhere, with an Event and a metric per refusal; the job never fails', async () => {
    const ns = await createNamespace('fault-reject');
    cleanups.push(() => deleteNamespace(ns));
    const poolName = uniqueName('frej');
    const refusing = [`${poolName}-refusing-a`, `${poolName}-refusing-b`];
    for (const name of refusing) {
      await core().createNode({ body: unmanagedNode(name, poolName) });
      const stopLease = keepLease(name);
      cleanups.push(async () => {
        stopLease();
        await deleteTestNodes([name]);
      });
    }
    for (const name of refusing) await waitNodeReady(name);
    // No kubelet confirms a graceful delete on these nodes: force any pod left there by a failure.
    cleanups.push(async () => {
      for (const p of (await core().listNamespacedPod({ namespace: ns })).items) {
        if (refusing.includes(p.spec?.nodeName ?? '')) {
          await core()
            .deleteNamespacedPod({ namespace: ns, name: p.metadata!.name!, gracePeriodSeconds: 0 })
            .catch(() => undefined);
        }
      }
    });
    const pool: Pool = {
      name: poolName,
      nodes: [...refusing],
      operatorFlags: ['--node-selector', `${LABEL_NODE_POOL}=${poolName}`],
      delete: async () => undefined,
    };
    const bindings = await watchBindings(ns);
    cleanups.push(async () => {
      bindings.stop();
    });
    const operator = await OperatorChild.start('reject', clusterState().kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      ...pool.operatorFlags,
    ]);
    cleanups.push(async () => {
      await operator.kill();
    });
    await operator.ready();

    // Restart policy Never (the default), no backoff room: counted as a failure, a refusal would fail the job.
    const name = 'rejected';
    const job = onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '3', memory: '1Gi' } }), pool);
    (job.spec as { runPolicy?: Record<string, unknown> }).runPolicy = { backoffLimit: 0 };
    await createTFJob(ns, job);
    const conditions = await recordConditions(ns, name);
    cleanups.push(async () => {
      conditions.stop();
    });

    // Each refusing node gets the replica once: refused there, it is placed on the other one.
    const refused: V1Pod[] = [];
    for (let round = 0; round < refusing.length; round++) {
      const pod = await eventually(
        async () => {
          const p = (await jobPods(ns, name)).find((x) => refusing.includes(x.spec?.nodeName ?? '') && x.status?.phase !== 'Failed');
          return p ?? false;
        },
        { timeoutMs: 120_000, what: `the worker placed on a refusing node (round ${round + 1})` },
      );
      await refuse(pod);
      refused.push(pod);
      await eventually(async () => !(await jobPods(ns, name)).some((p) => p.metadata?.uid === pod.metadata?.uid), {
        timeoutMs: 120_000,
        what: `the refused pod ${pod.metadata!.name!} deleted (round ${round + 1})`,
      });
    }
    expect(new Set(refused.map((p) => p.spec!.nodeName)).size).toBe(2);

    const events = await waitForJobEvents(
      ns,
      name,
      (es) => refusing.every((n) => es.some((e) => e.reason === 'PodRejectedByKubelet' && e.message?.includes(n) === true)),
      'a rejection event naming each refusing node',
      60_000,
    );
    for (const e of events.filter((x) => x.reason === 'PodRejectedByKubelet')) {
      expect(e.type).toBe('Warning');
      expect(e.message).toContain('OutOfcpu');
    }
    await eventually(async () => sumOf(await operator.metrics(), REJECTIONS, { reason: 'OutOfcpu' }) === 2, {
      timeoutMs: 60_000,
      what: 'two rejections counted',
    });

    // With both nodes avoided the replica waits, and the job's status says why (the last refusal).
    await eventually(
      async () => {
        const scheduling = (await getTFJob(ns, name)).status?.scheduling as { reason?: string; message?: string } | undefined;
        return (
          scheduling?.reason === 'PodRejectedByKubelet' &&
          scheduling.message?.includes(`The kubelet of ${refused[1]!.spec!.nodeName!}`) === true
        );
      },
      { timeoutMs: 60_000, what: 'status.scheduling naming the last refusal' },
    );

    // A node that admits the pod appears: the replica is placed there, runs, and the job succeeds.
    const [roomy] = await addPoolNodes(pool, 'roomy', 1, { cpu: '4', memory: '16Gi' });
    cleanups.push(() => deleteTestNodes([roomy!]));
    const running = await eventually(
      async () => {
        const pod = (await jobPods(ns, name))[0];
        return pod?.status?.phase === 'Running' ? pod : false;
      },
      { timeoutMs: 120_000, what: 'the worker placed again and Running' },
    );
    expect(running.spec?.nodeName).toBe(roomy);
    await exitPod(ns, running.metadata!.name!, 0);
    await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 120_000 });

    // Never a second pod on a node that refused one; no failure, restart or extra count anywhere.
    const onRefusing = [...bindings.nodeOf].filter(([, node]) => refusing.includes(node)).map(([uid]) => uid);
    expect(onRefusing.sort()).toEqual(refused.map((p) => p.metadata!.uid!).sort());
    expect(conditions.history.flat()).not.toContain('Failed');
    const status = (await getTFJob(ns, name)).status as {
      podRecreations?: unknown;
      replicaStatuses?: Record<string, { failed?: number }>;
    };
    expect(status.podRecreations).toBeUndefined();
    expect(status.replicaStatuses?.Worker?.failed ?? 0).toBe(0);
    expect(sumOf(await operator.metrics(), REJECTIONS)).toBe(2);
    expect(operator.running, operator.tail()).toBe(true);
  }, 600_000);
});
