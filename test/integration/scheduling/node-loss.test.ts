// A node that disappears or goes NotReady: the operator removes the replicas stranded there and places
// them again on the remaining nodes (a lost PS included); the job keeps running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Operator } from '../../../src/operator/manager.ts';
import { NODE_NOT_READY_ANNOTATION } from '../../../lab/local-cluster/index.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, patchNode, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, getTFJob, waitForJobEvents, livePods } from '../../support/tfjob.ts';

const running = async (ns: string, job: string) =>
  (await livePods(ns, job)).filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName !== undefined);

describe('node loss (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-nodeloss');
    pool = await createPool('nodeloss', 3, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--node-lost-grace',
      '2s',
      '--scale-out-cooldown',
      '0s',
      '--scheduling-interval',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('re-places workers and the PS of a deleted node elsewhere, and the job keeps running', async () => {
    await createTFJob(
      ns,
      onPool(elasticJob('survivor', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 2, max: 4 }), pool),
    );
    let pods = await eventually(
      async () => {
        const p = await running(ns, 'survivor');
        return p.length === 5 ? p : false;
      },
      { what: 'survivor at 4 workers' },
    );
    const psNode = pods.find((p) => p.metadata?.name === 'survivor-ps-0')!.spec!.nodeName!;

    // Delete the PS's node: the PS and the workers there are lost.
    await adminKubeConfig().makeApiClient(CoreV1Api).deleteNode({ name: psNode });
    pods = await eventually(
      async () => {
        const p = await running(ns, 'survivor');
        const ps = p.find((x) => x.metadata?.name === 'survivor-ps-0');
        return ps !== undefined && ps.spec?.nodeName !== psNode && p.filter((x) => x.metadata?.name?.includes('-worker-')).length >= 2
          ? p
          : false;
      },
      { what: 'PS and at least the minimum workers placed again', timeoutMs: 60_000 },
    );
    expect(pods.every((p) => p.spec?.nodeName !== psNode)).toBe(true);
    const job = await getTFJob(ns, 'survivor');
    expect(job.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True')).toBe(false);
    await waitForJobEvents(
      ns,
      'survivor',
      (es) => es.some((e) => e.reason === 'NodeLost' && (e.message ?? '').includes(psNode)),
      `a NodeLost event naming ${psNode}`,
    );
  });

  it('treats a node that stays NotReady past the grace period as lost', async () => {
    const pods = await running(ns, 'survivor');
    const worker = pods.find((p) => p.metadata?.name?.includes('-worker-') && p.spec?.nodeName !== undefined)!;
    const node = worker.spec!.nodeName!;
    // The node reports Ready=False (kwok plays a kubelet whose runtime is down).
    await patchNode(node, { metadata: { annotations: { [NODE_NOT_READY_ANNOTATION]: 'true' } } });
    await eventually(
      async () => {
        const n = await adminKubeConfig().makeApiClient(CoreV1Api).readNode({ name: node });
        return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True') === true;
      },
      { what: `node ${node} NotReady`, timeoutMs: 90_000 },
    );
    await eventually(async () => (await running(ns, 'survivor')).every((p) => p.spec?.nodeName !== node), {
      what: `nothing left on ${node}`,
      timeoutMs: 60_000,
    });
    // Its pods are being deleted gracefully (the node may come back); the elastic workers run
    // elsewhere once their replacements are placed and started.
    const left = await eventually(
      async () => {
        const p = await running(ns, 'survivor');
        return p.filter((x) => x.metadata?.name?.includes('-worker-')).length >= 2 ? p : false;
      },
      { what: 'at least the minimum workers running elsewhere', timeoutMs: 60_000 },
    );
    expect(left.some((p) => p.metadata?.name === 'survivor-ps-0')).toBe(true);
    expect(left.every((p) => p.spec?.nodeName !== node)).toBe(true);
  });
});
