// Pods whose templates carry constraints the operator does not evaluate (PersistentVolumeClaims, host
// ports, pod (anti-)affinity, topology spread, resource claims) are not bound by `nodeName`: they keep
// the operator's node as a required node affinity and kube-scheduler binds them only if all its
// filters pass. They used to be bound by nodeName and "ran" where kube-scheduler would have refused
// them: a pod whose PVC does not exist, a second pod on a taken host port.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_PLACED_NODE } from '../../../src/api/v1/constants.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createForeignPod, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, jobEvents, jobPods, tfjob, waitForCondition, type TestTFJob } from '../../support/tfjob.ts';

describe('placement left to kube-scheduler for constraints the operator does not evaluate (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

  beforeAll(async () => {
    ns = await createNamespace('sched-bound');
    pool = await createPool('bound', 1, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    await core()
      .deletePersistentVolume({ name: `${ns}-data` })
      .catch(() => undefined);
  });

  const workerSpec = (job: TestTFJob) =>
    (job.spec.tfReplicaSpecs as Record<string, { template: { spec: Record<string, unknown> } }>).Worker!.template.spec;
  const workerOf = async (job: string) => (await jobPods(ns, job)).find((p) => p.metadata?.name === `${job}-worker-0`);

  it('keeps a pod whose PVC does not exist Pending with the reason, and runs it on the chosen node once the claim is bound', async () => {
    const job = onPool(tfjob('with-pvc', { Worker: 1 }, { resources: { cpu: '1' } }), pool);
    const spec = workerSpec(job);
    spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }];
    await createTFJob(ns, job);

    const pending = await eventually(
      async () => {
        const pod = await workerOf('with-pvc');
        const unschedulable = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
        return unschedulable === undefined ? false : { pod, unschedulable };
      },
      { timeoutMs: 60_000, what: 'the worker Unschedulable' },
    );
    expect(pending.pod?.spec?.nodeName).toBeUndefined();
    expect(pending.pod?.metadata?.annotations?.[ANNOTATION_PLACED_NODE]).toBe(pool.nodes[0]);
    expect(pending.unschedulable.message).toContain('persistentvolumeclaim "data" not found');
    // The TFJob echoes the pod's condition (tf-operator's abnormal-pod warnings).
    await eventually(
      async () => (await jobEvents(ns, 'with-pvc')).some((e) => e.message?.includes('persistentvolumeclaim "data" not found')),
      {
        timeoutMs: 30_000,
        what: 'the reason on the TFJob',
      },
    );

    // A statically bound claim: kube-scheduler binds the pod, to the node the operator chose.
    await core().createPersistentVolume({
      body: {
        metadata: { name: `${ns}-data` },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          hostPath: { path: '/tmp/data' },
          claimRef: { namespace: ns, name: 'data' },
        },
      },
    });
    await core().createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          volumeName: `${ns}-data`,
          resources: { requests: { storage: '1Gi' } },
        },
      },
    });
    await waitForCondition(ns, 'with-pvc', 'Running', { timeoutMs: 120_000 });
    expect((await workerOf('with-pvc'))?.spec?.nodeName).toBe(pool.nodes[0]);
  }, 240_000);

  it('never runs two pods on one node that ask for the same host port', async () => {
    const withPort = (name: string) => {
      const job = onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '1' } }), pool);
      const c = (workerSpec(job).containers as Record<string, unknown>[])[0]!;
      c.ports = [{ name: 'metrics', containerPort: 9100, hostPort: 9100 }];
      return job;
    };
    await createTFJob(ns, withPort('port-a'));
    await waitForCondition(ns, 'port-a', 'Running', { timeoutMs: 60_000 });
    // The node has cpu for both, so the operator admits the second too; kube-scheduler refuses it.
    await createTFJob(ns, withPort('port-b'));
    const refused = await eventually(
      async () => {
        const pod = await workerOf('port-b');
        return pod?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') ?? false;
      },
      { timeoutMs: 60_000, what: 'the second worker Unschedulable' },
    );
    expect(refused.message).toContain('free ports');
    expect((await workerOf('port-b'))?.spec?.nodeName).toBeUndefined();
  }, 180_000);
});

describe('a pod kube-scheduler refuses on the node chosen for it (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const core = () => adminKubeConfig().makeApiClient(CoreV1Api);
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  beforeAll(async () => {
    ns = await createNamespace('sched-refused');
    // The second node starts cordoned, so the operator's first choice is the first one.
    pool = await createPool('refused', 2, { cpu: '8', memory: '32Gi' });
    await core().patchNode({ name: pool.nodes[1]!, body: { spec: { unschedulable: true } } }, merge);
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--replace-refused-after',
      '3s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('places it again on another node, says why, and it runs there', async () => {
    const [first, second] = [pool.nodes[0]!, pool.nodes[1]!];
    // A pod the worker must not share a node with, already on the first node.
    await createForeignPod(ns, 'guard', first, { cpu: '100m', labels: { app: 'guard' } });
    const job = onPool(tfjob('apart', { Worker: 1 }, { resources: { cpu: '1' } }), pool);
    const worker = (job.spec.tfReplicaSpecs as Record<string, { template: { spec: Record<string, unknown> } }>).Worker!.template.spec;
    worker.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'guard' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    };
    await createTFJob(ns, job);
    const workerPod = async () => (await jobPods(ns, 'apart')).find((p) => p.metadata?.name === 'apart-worker-0');

    // The operator evaluates no pod anti-affinity: it chooses the first node; kube-scheduler refuses.
    const refused = await eventually(
      async () => {
        const pod = await workerPod();
        const c = pod?.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.reason === 'Unschedulable');
        return c === undefined ? false : { pod, c };
      },
      { timeoutMs: 60_000, what: 'the worker refused on the first node' },
    );
    expect(refused.pod?.metadata?.annotations?.[ANNOTATION_PLACED_NODE]).toBe(first);
    expect(refused.c.message).toContain('anti-affinity');
    await core().patchNode({ name: second, body: { spec: { unschedulable: false } } }, merge);

    await waitForCondition(ns, 'apart', 'Running', { timeoutMs: 120_000 });
    expect((await workerPod())?.spec?.nodeName).toBe(second);
    const events = await jobEvents(ns, 'apart');
    const moved = events.find((e) => e.reason === 'RefusedByScheduler');
    expect(moved?.type).toBe('Warning');
    expect(moved?.message).toContain(`kube-scheduler refused it on ${first}`);
    expect(moved?.message).toContain('anti-affinity');
  }, 240_000);
});
