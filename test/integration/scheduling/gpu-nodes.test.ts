// A TFJob whose PS requests no GPU and whose workers request nvidia.com/gpu, on a pool of CPU-only
// kwok nodes to which a GPU node is added later (issue 41 item 3). With our scheduler the job waits
// whole, saying why, and then runs with its PS beside its workers on the GPU node
// (docs/scheduling.md §5, "CPU-only replicas of GPU jobs"); under `--policy tf-operator`
// kube-scheduler runs the PS on a CPU node at once while the workers stay Pending
// (docs/differences-from-tf-operator.md, 22).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { addPoolNodes, createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, jobEvents, jobPods, livePods, waitForCondition, type TestTFJob } from '../../support/tfjob.ts';

const GPU = 'nvidia.com/gpu';
const CPU_NODE = { cpu: '8', memory: '32Gi' };
const GPU_NODE = { cpu: '16', memory: '64Gi', [GPU]: '4' };

/** PS: 1 cpu, no GPU; 2 workers of one GPU each (an extended resource needs its limit). */
function gpuJob(name: string): TestTFJob {
  const container = (requests: Record<string, string>, limits?: Record<string, string>) => ({
    name: 'tensorflow',
    image: 'example.invalid/tf:2.15',
    resources: { requests, ...(limits === undefined ? {} : { limits }) },
  });
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name },
    spec: {
      tfReplicaSpecs: {
        PS: { replicas: 1, restartPolicy: 'OnFailure', template: { spec: { containers: [container({ cpu: '1', memory: '1Gi' })] } } },
        Worker: {
          replicas: 2,
          restartPolicy: 'OnFailure',
          template: { spec: { containers: [container({ cpu: '2', memory: '4Gi', [GPU]: '1' }, { [GPU]: '1' })] } },
        },
      },
    },
  };
}

describe('a GPU job on CPU-only nodes, then a GPU node (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-gpu');
    pool = await createPool('gpu-ours', 2, CPU_NODE);
    operator = await startOperator(ns, ['--policy', 'ours', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('waits whole while no node has a GPU, saying so in its status and an Event', async () => {
    await createTFJob(ns, onPool(gpuJob('train'), pool));
    const job = await eventually(
      async () => {
        const j = await getTFJob(ns, 'train');
        return j.status?.scheduling?.queue === 'Waiting' && typeof j.status.scheduling.message === 'string' ? j : false;
      },
      { what: 'train waiting with a reason' },
    );
    expect(String(job.status?.scheduling?.message)).toContain(`no node has ${GPU} (Worker requests it`);
    // No PS runs ahead of its workers: no pod at all, and replicaStatuses without active replicas.
    expect(await jobPods(ns, 'train')).toHaveLength(0);
    expect(job.status?.replicaStatuses?.PS?.active ?? 0).toBe(0);
    expect(job.status?.replicaStatuses?.Worker?.active ?? 0).toBe(0);
    await eventually(async () => (await jobEvents(ns, 'train')).some((e) => e.message?.includes(`no node has ${GPU}`) === true), {
      what: `an Event of train saying no node has ${GPU}`,
    });
  });

  it('once a GPU node joins, runs with its PS beside its workers on that node', async () => {
    const [gpuNode] = await addPoolNodes(pool, 'gpu', 1, GPU_NODE);
    await waitForCondition(ns, 'train', 'Running', { timeoutMs: 60_000 });
    const pods = await livePods(ns, 'train');
    expect(pods.map((p) => `${p.metadata?.name}@${p.spec?.nodeName}`).sort()).toEqual([
      `train-ps-0@${gpuNode}`,
      `train-worker-0@${gpuNode}`,
      `train-worker-1@${gpuNode}`,
    ]);
  });
});

describe('the same job under --policy tf-operator (kube-scheduler places each pod)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-gpu-tfop');
    pool = await createPool('gpu-tfop', 1, CPU_NODE);
    operator = await startOperator(ns, ['--policy', 'tf-operator']);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('runs the PS on the CPU node at once while the workers stay Pending; a GPU node then takes the workers', async () => {
    await createTFJob(ns, onPool(gpuJob('train'), pool));
    const cpuNode = pool.nodes[0]!;
    await eventually(
      async () => {
        const pods = await jobPods(ns, 'train');
        const ps = pods.find((p) => p.metadata?.name === 'train-ps-0');
        const workers = pods.filter((p) => p.metadata?.name?.startsWith('train-worker-') === true);
        const unschedulable = workers.every((w) =>
          w.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'),
        );
        return ps?.spec?.nodeName === cpuNode && workers.length === 2 && unschedulable;
      },
      { what: 'PS bound to the CPU node, workers Unschedulable' },
    );
    const waiting = await eventually(
      async () => {
        const j = await getTFJob(ns, 'train');
        return j.status?.replicaStatuses?.PS?.active === 1 ? j : false;
      },
      { what: 'replicaStatuses.PS.active = 1' },
    );
    expect(waiting.status?.replicaStatuses?.Worker?.active ?? 0).toBe(0);
    expect(waiting.status?.scheduling).toBeUndefined();

    const [gpuNode] = await addPoolNodes(pool, 'gpu', 1, GPU_NODE);
    // kube-scheduler retries the Unschedulable workers when a node joins.
    const pods = await eventually(
      async () => {
        const p = await livePods(ns, 'train');
        return p.length === 3 && p.every((x) => x.spec?.nodeName !== undefined) ? p : false;
      },
      { what: 'every pod of train bound', timeoutMs: 60_000 },
    );
    expect(pods.map((p) => `${p.metadata?.name}@${p.spec?.nodeName}`).sort()).toEqual([
      `train-ps-0@${cpuNode}`,
      `train-worker-0@${gpuNode}`,
      `train-worker-1@${gpuNode}`,
    ]);
  });
});
