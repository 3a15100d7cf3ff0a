// Fault: the API server answering 429/500/503 for a while, through the fault proxy in front of the
// shared apiserver. A seeded fraction of every request fails, some writes *after* the apiserver
// applied them (the client sees an error for a write that happened, as after a timeout), watches
// included. The work queue must back off per key and recover: every job finishes, nothing is left
// queued or in flight, every invariant holds.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../support/fault-proxy.ts';
import { Scenario, createPriorityClass, scratchDir } from '../../support/fault-scenario.ts';
import { InvariantMonitor } from '../../support/invariants.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { sumOf } from '../../support/prometheus.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { rng, scenarioSeed } from '../../support/prng.ts';
import { createTFJob, elasticJob, getTFJob, jobPods, livePods } from '../../support/tfjob.ts';

describe('fault: API errors (429/500/503) for a while', () => {
  let proxy: FaultProxy;
  let kubeconfig: string;
  const pools: Pool[] = [];
  const namespaces: string[] = [];
  const operators: OperatorChild[] = [];
  const drops: (() => Promise<void>)[] = [];
  const highClass = uniqueName('fault-api-high');

  beforeAll(async () => {
    const s = clusterState();
    proxy = await FaultProxy.start({ upstream: s.server, caFile: s.caFile, seed: scenarioSeed(8005) });
    kubeconfig = proxy.writeKubeconfig(path.join(scratchDir('api-errors'), 'kubeconfig'), s.adminToken);
    drops.push(await createPriorityClass(adminKubeConfig(), highClass, 1000));
  });
  afterAll(async () => {
    for (const o of operators) await o.kill();
    await proxy.close();
    for (const ns of namespaces) await deleteNamespace(ns);
    for (const p of pools) await p.delete();
    for (const d of drops) await d();
  });

  async function setup(prefix: string, nodes: number, cpu: string): Promise<{ ns: string; pool: Pool; operator: OperatorChild }> {
    const ns = await createNamespace(prefix);
    namespaces.push(ns);
    const pool = await createPool(prefix.slice(0, 6), nodes, { cpu, memory: `${Number(cpu) * 4}Gi` });
    pools.push(pool);
    const operator = await OperatorChild.start(prefix, kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--scale-out-cooldown',
      '0s',
      ...pool.operatorFlags,
    ]);
    operators.push(operator);
    await operator.ready();
    return { ns, pool, operator };
  }

  it('backs off per key while a seeded fraction of requests fails, then recovers; every job succeeds', async () => {
    const seed = scenarioSeed(8006);
    const r = rng(seed);
    const { ns, pool, operator } = await setup('fault-api', 3, '6');
    const s = new Scenario({
      name: 'api-errors',
      seed,
      namespace: ns,
      kc: adminKubeConfig(),
      pool,
      jobs: 24,
      highClass,
      auditLog: clusterState().auditLog,
    });
    s.operators.push(operator);
    await s.start();
    // Three windows of errors, with quiet gaps between them.
    for (let w = 0; w < 3; w++) {
      await sleep(r.int(2_000, 6_000));
      const before = { ...proxy.stats.injected };
      proxy.setFailures({ fraction: 0.2, statuses: [429, 500, 503], afterForwardFraction: 0.3, watches: true });
      await sleep(r.int(10_000, 20_000));
      proxy.setFailures(undefined);
      for (const [code, n] of Object.entries(proxy.stats.injected)) s.count(`http-${code}`, n - (before[code] ?? 0));
    }
    const report = await s.finish({ timeoutMs: 300_000 });
    expect(operator.running, operator.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // Bounded memory: the operator's peak RSS over the run (restarts included).
    expect(report.memory.maxBytes).toBeLessThan(768 * 2 ** 20);
    expect(report.succeeded).toBe(24);
    const injected = Object.values(report.faults).reduce((a, b) => a + b, 0);
    expect(injected).toBeGreaterThan(0);

    const m = await operator.metrics();
    // Failed reconciles were retried through the rate limiter (per-key backoff)...
    expect(sumOf(m, 'workqueue_retries_total')).toBeGreaterThan(0);
    expect(sumOf(m, 'controller_runtime_reconcile_errors_total')).toBeGreaterThan(0);
    // ...and nothing is stuck: no key queued or in flight once the jobs are done.
    await eventually(
      async () => {
        const now = await operator.metrics();
        return sumOf(now, 'workqueue_depth') === 0 && sumOf(now, 'workqueue_unfinished_work_seconds') === 0;
      },
      { timeoutMs: 30_000, what: 'an empty, idle work queue' },
    );
  }, 600_000);

  it('completes a removal whose mark was applied but reported failed (the preemption victim is deleted, the preemptor runs)', async () => {
    const { ns, pool } = await setup('fault-mark', 1, '4');
    const monitor = await InvariantMonitor.start({
      kubeConfig: adminKubeConfig(),
      namespace: ns,
      nodes: pool.nodes,
      auditLog: clusterState().auditLog,
    });
    const light = onPool(elasticJob('light', { worker: { cpu: '1', memory: '1Gi' }, min: 1, max: 4 }), pool);
    await createTFJob(ns, light);
    await eventually(async () => (await livePods(ns, 'light')).filter((p) => p.status?.phase === 'Running').length === 4, {
      what: 'light at 4 workers',
      timeoutMs: 60_000,
    });

    // Every removal mark (a PATCH of a pod) is applied by the apiserver but answered 500.
    const before = proxy.stats.injected['500'] ?? 0;
    proxy.setFailures({ fraction: 1, statuses: [500], afterForwardFraction: 1, methods: ['PATCH'], paths: [`/namespaces/${ns}/pods/`] });
    const heavy = onPool(elasticJob('heavy', { worker: { cpu: '1', memory: '1Gi' }, min: 2, max: 2, priorityClass: highClass }), pool);
    await createTFJob(ns, heavy);
    await eventually(async () => (proxy.stats.injected['500'] ?? 0) > before, {
      what: 'a removal mark applied but answered 500',
      timeoutMs: 60_000,
    });
    await sleep(5_000);
    proxy.setFailures(undefined);

    // The interrupted removals complete: no marked pod stays, the heavy job gets its workers.
    await eventually(
      async () => {
        const marked = (await jobPods(ns, 'light')).filter(
          (p) =>
            p.metadata?.annotations?.['tfjob-operator.kubeflow.org/removal'] !== undefined && p.metadata.deletionTimestamp === undefined,
        );
        return marked.length === 0;
      },
      { what: 'no pod left marked for removal but not deleted', timeoutMs: 60_000 },
    );
    await eventually(async () => (await livePods(ns, 'heavy')).filter((p) => p.status?.phase === 'Running').length === 2, {
      what: 'heavy running its 2 workers',
      timeoutMs: 60_000,
    });
    for (const job of ['heavy', 'light']) await exitPod(ns, `${job}-worker-0`, 0);
    await eventually(
      async () => (await getTFJob(ns, 'light')).status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True') === true,
      { what: 'light succeeded', timeoutMs: 60_000 },
    );
    const report = await monitor.finish({ expectFinished: (j) => j.metadata?.name === 'light' });
    expect(report.violations).toEqual([]);
    // The victims went with their mark (judged as preemptions), whoever completed the delete.
    expect(report.deletions.byReason['pod:preemption']).toBeGreaterThan(0);
  }, 300_000);
});
