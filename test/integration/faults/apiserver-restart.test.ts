// Fault: kube-apiserver restarted mid-run (stopped, down for a few seconds, started again with the
// same flags and data), several times, while jobs arrive, run and finish. The operator's lists,
// watches and writes fail with connection errors meanwhile and must resume by themselves.
// A control plane of its own (restarting the shared apiserver would break other test files), with
// the watch cache off so every watch resumes from etcd at its resourceVersion (no spurious gaps).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../../lab/local-cluster/index.ts';
import { namespaceIn, poolIn, startDedicatedCluster } from '../../support/dedicated-cluster.ts';
import { Scenario, createPriorityClass } from '../../support/fault-scenario.ts';
import { sumOf } from '../../support/prometheus.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import type { Pool } from '../../support/pool.ts';
import { rng, scenarioSeed } from '../../support/prng.ts';

const SEED = scenarioSeed(8002);
const JOBS = 24;
const RESTARTS = 3;

describe('fault: kube-apiserver restarted mid-run', () => {
  let cluster: LocalCluster;
  let ns: string;
  let pool: Pool;
  let scenario: Scenario | undefined;

  beforeAll(async () => {
    cluster = await startDedicatedCluster({ extraApiserverArgs: ['--watch-cache=false'] });
    ns = await namespaceIn(cluster.kubeConfig(), 'fault-apiserver');
    pool = await poolIn(cluster, 'fapi', 3, { cpu: '6', memory: '24Gi' });
    await createPriorityClass(cluster.kubeConfig(), 'fault-high', 1000);
  });
  afterAll(async () => {
    await scenario?.stopOperators();
    await cluster.stop();
  });

  it(`finishes every job with every invariant held across ${RESTARTS} apiserver restarts (seed ${SEED})`, async () => {
    const s = new Scenario({
      name: 'apiserver-restart',
      seed: SEED,
      namespace: ns,
      kc: cluster.kubeConfig(),
      pool,
      jobs: JOBS,
      highClass: 'fault-high',
      auditLog: cluster.state.auditLog,
    });
    scenario = s;
    const r = rng(SEED);
    const operator = await OperatorChild.start('apiserver-restart', cluster.kubeconfigPath, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--scale-out-cooldown',
      '2s',
      ...pool.operatorFlags,
    ]);
    s.operators.push(operator);
    await operator.ready();
    await s.start();

    const pids: number[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      await sleep(r.int(4_000, 12_000));
      pids.push(await cluster.restartComponent('kube-apiserver', { downMs: r.int(1_000, 5_000) }));
      s.count('apiserver-restart');
    }
    // Really new processes each time.
    expect(new Set(pids).size).toBe(RESTARTS);
    expect(cluster.state.processes['kube-apiserver']?.pid).toBe(pids.at(-1));

    const report = await s.finish({ timeoutMs: 300_000 });
    expect(operator.running, operator.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // Bounded memory: the operator's peak RSS over the run (restarts included).
    expect(report.memory.maxBytes).toBeLessThan(768 * 2 ** 20);
    expect(report.succeeded).toBe(JOBS);
    // The operator saw the outages (failed requests or watch errors) and recovered from them.
    const m = await operator.metrics();
    const failed =
      sumOf(m, 'rest_client_requests_total', { code: '<error>' }) + sumOf(m, 'tfjob_operator_informer_events_total', { event: 'error' });
    expect(failed).toBeGreaterThan(0);
    expect(cluster.deadComponents()).toEqual([]);
  }, 600_000);
});
