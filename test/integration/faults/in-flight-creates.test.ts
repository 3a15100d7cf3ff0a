// Fault: a TFJob deleted while the operator's pod creates for it are in flight. The fault proxy holds
// the creates (the operator waits for their answers as long as the test needs, no timing involved);
// the job is deleted and another job asking for the same room arrives; then the creates go through.
// The API server creates the deleted job's pods (bound to their node; garbage collection removes them
// only afterwards), so a scheduler that forgot them with their job places the other job into their
// room: the node over-committed. The invariant monitor judges every pod as it lands.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../support/fault-proxy.ts';
import { scratchDir } from '../../support/fault-scenario.ts';
import { InvariantMonitor } from '../../support/invariants.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, deleteTFJob, elasticJob, getTFJob, jobPods, livePods } from '../../support/tfjob.ts';

describe('fault: a job deleted while its pod creates are in flight', () => {
  let proxy: FaultProxy;
  let ns: string;
  let pool: Pool;
  let operator: OperatorChild;

  beforeAll(async () => {
    const s = clusterState();
    proxy = await FaultProxy.start({ upstream: s.server, caFile: s.caFile, seed: 8009 });
    const kubeconfig = proxy.writeKubeconfig(path.join(scratchDir('in-flight-creates'), 'kubeconfig'), s.adminToken);
    ns = await createNamespace('fault-inflight');
    pool = await createPool('finfl', 1, { cpu: '4', memory: '16Gi' });
    operator = await OperatorChild.start('in-flight', kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      ...pool.operatorFlags,
    ]);
    await operator.ready();
  });
  afterAll(async () => {
    await operator.kill();
    await proxy.close();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it("keeps the room of the deleted job's pods until they are seen, so the next job waits instead of over-committing", async () => {
    const monitor = await InvariantMonitor.start({
      kubeConfig: adminKubeConfig(),
      namespace: ns,
      nodes: pool.nodes,
      auditLog: clusterState().auditLog,
    });
    // Each job takes the whole node: 2 workers of 2 cpu on one 4 cpu node.
    const job = (name: string) => onPool(elasticJob(name, { worker: { cpu: '2', memory: '1Gi' }, min: 2, max: 2 }), pool);
    const podPosts = (method: string, p: string) => method === 'POST' && p === `/api/v1/namespaces/${ns}/pods`;

    proxy.holdNext(2, podPosts);
    await createTFJob(ns, job('first'));
    await eventually(async () => proxy.held === 2, { what: "both of first's pod creates held in flight", timeoutMs: 60_000 });
    await deleteTFJob(ns, 'first');
    await eventually(
      async () =>
        getTFJob(ns, 'first').then(
          () => false,
          () => true,
        ),
      { what: 'first gone', timeoutMs: 30_000 },
    );

    // A pass decides about `second` while first's creates are still held: the status says what it decided.
    await createTFJob(ns, job('second'));
    const decided = await eventually(async () => (await getTFJob(ns, 'second')).status?.scheduling?.reason ?? false, {
      what: 'a scheduling decision about second',
      timeoutMs: 60_000,
    });
    expect(decided).toBe('Waiting');

    proxy.release();
    // first's pods land (and are collected with their deleted owner); then second runs and finishes.
    await eventually(async () => (await livePods(ns, 'second')).filter((p) => p.status?.phase === 'Running').length === 2, {
      what: 'second running both workers',
      timeoutMs: 120_000,
    });
    await eventually(async () => (await jobPods(ns, 'first')).length === 0, { what: "first's pods collected", timeoutMs: 60_000 });
    await exitPod(ns, 'second-worker-0', 0);
    await eventually(
      async () => (await getTFJob(ns, 'second')).status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') === true,
      { what: 'second succeeded', timeoutMs: 60_000 },
    );
    const report = await monitor.finish({ expectFinished: (j) => j.metadata?.name === 'second' });
    expect(report.violations).toEqual([]);
  }, 300_000);
});
