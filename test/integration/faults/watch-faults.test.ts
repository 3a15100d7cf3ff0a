// Faults on the operator's watches, through the fault proxy, on a control plane of this file's own
// (watch cache off, so a watch resuming from a compacted resourceVersion really gets 410 Gone):
// - etcd compacted, then every watch of the operator cut: each informer resumes from a revision
//   that no longer exists, gets 410 Gone, and must relist (emitting deletes it missed);
// - watches that go silent without closing (the proxy stops forwarding, the socket stays open):
//   the informers must notice the silence and reconnect, not wait forever.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '../../../lab/local-cluster/index.ts';
import { compactEtcdAt, namespaceIn, poolIn, startDedicatedCluster } from '../../support/dedicated-cluster.ts';
import { FaultProxy } from '../../support/fault-proxy.ts';
import { Scenario, createPriorityClass, scratchDir } from '../../support/fault-scenario.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { sumOf } from '../../support/prometheus.ts';
import type { Pool } from '../../support/pool.ts';
import { rng, scenarioSeed } from '../../support/prng.ts';
import path from 'node:path';

const JOBS = 20;

describe('fault: watches broken under the operator', () => {
  let cluster: LocalCluster;
  let proxy: FaultProxy;
  let kubeconfig: string;
  const scenarios: Scenario[] = [];

  beforeAll(async () => {
    cluster = await startDedicatedCluster({ extraApiserverArgs: ['--watch-cache=false'] });
    await createPriorityClass(cluster.kubeConfig(), 'fault-high', 1000);
    proxy = await FaultProxy.start({ upstream: cluster.server, caFile: cluster.state.caFile, seed: 1 });
    kubeconfig = proxy.writeKubeconfig(path.join(scratchDir('watch-faults'), 'kubeconfig'), cluster.state.adminToken);
  });
  afterAll(async () => {
    for (const s of scenarios) await s.stopOperators();
    await proxy.close();
    await cluster.stop();
  });

  async function run(
    name: string,
    seed: number,
    inject: (s: Scenario, operator: OperatorChild, pool: Pool) => Promise<void>,
  ): Promise<{ s: Scenario; operator: OperatorChild }> {
    const ns = await namespaceIn(cluster.kubeConfig(), name);
    const pool = await poolIn(cluster, name.slice(0, 6), 3, { cpu: '6', memory: '24Gi' });
    const s = new Scenario({
      name,
      seed,
      namespace: ns,
      kc: cluster.kubeConfig(),
      pool,
      jobs: JOBS,
      highClass: 'fault-high',
      auditLog: cluster.state.auditLog,
    });
    scenarios.push(s);
    const operator = await OperatorChild.start(name, kubeconfig, [
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
    await inject(s, operator, pool);
    const report = await s.finish({ timeoutMs: 300_000 });
    expect(operator.running, operator.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // Bounded memory: the operator's peak RSS over the run (restarts included).
    expect(report.memory.maxBytes).toBeLessThan(768 * 2 ** 20);
    expect(report.succeeded).toBe(JOBS);
    return { s, operator };
  }

  it('relists after etcd compaction makes every resumed watch 410 Gone', async () => {
    const seed = scenarioSeed(8003);
    const r = rng(seed);
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    const { operator } = await run('fault-gone', seed, async (s) => {
      for (let i = 0; i < 3; i++) {
        await sleep(r.int(4_000, 10_000));
        // Cut the operator's watches and hold them off; writes elsewhere move etcd's revision past the
        // operator's last seen one; the compaction then removes every revision it could resume from.
        proxy.refuseWatches(true);
        s.count('watches-cut', proxy.closeWatches());
        for (let k = 0; k < 3; k++)
          await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'bump-' } } });
        // etcd cancels only watchers lagging behind at compaction time: give the monitor's (direct,
        // not cut) watches a moment to catch up, so the gaps are the operator's, not the monitor's.
        await sleep(2_000);
        await compactEtcdAt(cluster.state.etcdEndpoint);
        s.count('etcd-compaction');
        proxy.refuseWatches(false);
      }
    });
    const m = await operator.metrics();
    // Every informer kind came back through a 410 relist at least once.
    const gone = (informer: string) => sumOf(m, 'tfjob_operator_informer_events_total', { informer, event: 'gone' });
    expect(gone(`tfjobs/${scenarios.at(-1)!.namespace}`) + gone(`pods/${scenarios.at(-1)!.namespace}`) + gone('pods')).toBeGreaterThan(0);
  }, 600_000);

  it('reconnects watches that go silent without closing', async () => {
    const seed = scenarioSeed(8004);
    const r = rng(seed);
    const { operator } = await run('fault-silent', seed, async (s) => {
      for (let i = 0; i < 2; i++) {
        await sleep(r.int(4_000, 10_000));
        // Existing streams freeze for good; new ones too for a while (a proxy holding connections).
        s.count('watches-frozen', proxy.freezeWatches({ alsoNew: true }));
        await sleep(r.int(5_000, 15_000));
        proxy.thaw();
      }
    });
    expect(proxy.stats.frozenWatches).toBeGreaterThan(0);
    // The informers reconnected (a list plus at least one new watch per informer after the freezes).
    const m = await operator.metrics();
    const informers = new Set(m.filter((x) => x.name === 'tfjob_operator_informer_events_total').map((x) => x.labels.informer ?? ''));
    for (const informer of informers)
      expect(sumOf(m, 'tfjob_operator_informer_events_total', { informer, event: 'watch' }), informer).toBeGreaterThan(1);
  }, 600_000);
});
