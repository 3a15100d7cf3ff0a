// The operator's own placement (spec.nodeName): fewest nodes, and everything the kubelet will not
// check for us: taints, cordoned nodes, node selectors. Plus jobs that request nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, patchNode, type Pool } from '../../support/pool.ts';
import {
  createTFJob,
  elasticJob,
  getTFJob,
  waitForEventReasons,
  livePods,
  podsByNode,
  tfjob,
  waitForCondition,
} from '../../support/tfjob.ts';

describe('placement by the operator (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-place');
    pool = await createPool('place', 5, { cpu: '4', memory: '16Gi' });
    // Nodes 0-2 are usable; node 3 carries a taint the jobs do not tolerate; node 4 is cordoned.
    await patchNode(pool.nodes[3]!, {
      spec: {
        taints: [
          { key: 'tfjob-operator.kubeflow.org/pool', value: pool.name, effect: 'NoSchedule' },
          { key: 'dedicated', value: 'other-team', effect: 'NoSchedule' },
        ],
      },
    });
    await patchNode(pool.nodes[4]!, { spec: { unschedulable: true } });
    operator = await startOperator(ns, ['--policy', 'ours', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('puts a job that fits on one node entirely on that node', async () => {
    await createTFJob(
      ns,
      onPool(elasticJob('small', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 2, max: 2 }), pool),
    );
    const pods = await eventually(
      async () => {
        const p = await livePods(ns, 'small');
        return p.length === 3 && p.every((x) => x.spec?.nodeName !== undefined) ? p : false;
      },
      { what: 'small placed' },
    );
    expect(Object.keys(podsByNode(pods))).toHaveLength(1);
  });

  it('runs a job whose containers request nothing (a default request is assumed for placement)', async () => {
    const job = onPool(tfjob('norequests', { PS: 1, Worker: 2 }), pool);
    await createTFJob(ns, job);
    await waitForCondition(ns, 'norequests', 'Running', { timeoutMs: 30_000 });
    const pods = await livePods(ns, 'norequests');
    expect(pods).toHaveLength(3);
    // The pod template is passed through: no requests are added to the pods.
    expect(pods.every((p) => p.spec?.containers[0]?.resources?.requests === undefined)).toBe(true);
    expect(pods.every((p) => p.spec?.nodeName !== undefined)).toBe(true);
  });

  it('spreads a job that fits on no single node over as few nodes as possible, PS together with workers, never on tainted or cordoned nodes', async () => {
    // PS 1 + 5 workers of 1 cpu = 6 cpu: no node holds it, two of the three usable 4-cpu nodes do.
    await createTFJob(
      ns,
      onPool(elasticJob('wide', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 5, max: 5 }), pool),
    );
    const pods = await eventually(
      async () => {
        const p = await livePods(ns, 'wide');
        return p.length === 6 && p.every((x) => x.spec?.nodeName !== undefined) ? p : false;
      },
      { what: 'wide placed' },
    );
    const byNode = podsByNode(pods);
    expect(Object.keys(byNode)).toHaveLength(2);
    const psNode = pods.find((p) => p.metadata?.name === 'wide-ps-0')?.spec?.nodeName ?? '';
    // The PS shares its node with workers.
    expect(byNode[psNode]!.length).toBeGreaterThan(1);
    const all = [...(await livePods(ns, 'small')), ...pods];
    for (const p of all) {
      expect(p.spec?.nodeName).not.toBe(pool.nodes[3]);
      expect(p.spec?.nodeName).not.toBe(pool.nodes[4]);
    }
  });

  it('keeps a job waiting, with a reason, when only tainted or cordoned nodes have room', async () => {
    // The usable nodes have at most 2 cpu left and no running job can shrink: a 3-cpu worker fits only
    // on the tainted or the cordoned node, so the job waits.
    await createTFJob(
      ns,
      onPool(elasticJob('blocked', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '3', memory: '1Gi' }, min: 1, max: 1 }), pool),
    );
    const job = await eventually(
      async () => {
        const j = await getTFJob(ns, 'blocked');
        return j.status?.scheduling?.queue === 'Waiting' && typeof j.status.scheduling.message === 'string' ? j : false;
      },
      { what: 'blocked waiting with a reason' },
    );
    expect(String(job.status?.scheduling?.message)).toMatch(/needs/);
    expect(await livePods(ns, 'blocked')).toHaveLength(0);
    await waitForEventReasons(ns, 'blocked', ['Waiting']);
    // Un-cordoning node 4 gives it room: it is admitted there.
    await patchNode(pool.nodes[4]!, { spec: { unschedulable: false } });
    await waitForCondition(ns, 'blocked', 'Running', { timeoutMs: 30_000 });
    const pods = await livePods(ns, 'blocked');
    expect(pods.every((p) => p.spec?.nodeName === pool.nodes[4])).toBe(true);
  });
});
