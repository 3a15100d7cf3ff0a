// Fault: leader failover during a burst. Two replicas elect a leader on a Lease; while a burst of
// jobs arrives the leader is SIGKILLed (the standby takes over once the lease expires), a new
// standby joins, and later the new leader is stopped with SIGTERM (it releases the lease: an
// immediate hand-over). Exactly the invariants of a single operator must hold throughout.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useSharedClusterFixture } from '../../support/fault-scenario.ts';
import { adminKubeConfig, clusterState, eventually } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { rng, scenarioSeed } from '../../support/prng.ts';

const SEED = scenarioSeed(8008);
const JOBS = 30;
const LEASE = 'tfjob-operator.kubeflow.org';

describe('fault: leader failover during a burst', () => {
  const fx = useSharedClusterFixture('fault-leader', 'flead', { nodes: 3 });

  it(`hands over without breaking a promise (seed ${SEED})`, async () => {
    const kc = adminKubeConfig();
    const { namespace: ns, pool } = fx;
    const s = fx.scenario({ name: 'leader-failover', seed: SEED, jobs: JOBS });
    const r = rng(SEED);
    let replicas = 0;
    const replica = async () => {
      const o = await OperatorChild.start(`replica-${replicas++}`, clusterState().kubeconfig, [
        '--namespace',
        ns,
        '--policy',
        'ours',
        '--scheduling-interval',
        '1s',
        '--scale-out-cooldown',
        '2s',
        ...pool.operatorFlags,
        '--leader-elect',
        '--leader-election-namespace',
        ns,
        '--leader-election-lease-duration',
        '8s',
        '--leader-election-renew-deadline',
        '6s',
        '--leader-election-retry-period',
        '1s',
      ]);
      s.operators.push(o);
      return o;
    };
    const holder = async () =>
      (await kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: LEASE, namespace: ns })).spec?.holderIdentity ?? '';
    const leader = async () =>
      eventually(
        async () => {
          const id = await holder();
          return s.operators.find((o) => o.name === id && o.running) ?? false;
        },
        { timeoutMs: 60_000, what: 'a live leader' },
      );

    await replica();
    await replica();
    const first = await leader();
    // A burst: every job within a few seconds.
    await s.start({ gapMs: [20, 250] });

    // Kill the leader mid-burst; the standby takes over after the lease expires.
    await sleep(r.int(1_000, 4_000));
    await first.kill('SIGKILL');
    s.count('leader-sigkill');
    await replica();
    const second = await eventually(
      async () => {
        const l = await leader();
        return l === first ? false : l;
      },
      { timeoutMs: 60_000, what: 'a new leader after SIGKILL' },
    );

    // Later, a graceful hand-over of the new leader.
    await sleep(r.int(5_000, 12_000));
    await second.kill('SIGTERM');
    s.count('leader-sigterm');
    await eventually(
      async () => {
        const l = await leader();
        return l !== second;
      },
      { timeoutMs: 60_000, what: 'a new leader after SIGTERM' },
    );

    const report = await s.finish({ timeoutMs: 300_000 });
    expect(second.exit).toMatchObject({ code: 0, signal: null });
    // The replicas still alive never exited on their own (e.g. a spurious loss of leadership).
    const alive = s.operators.filter((o) => o !== first && o !== second);
    for (const o of alive) expect(o.running, o.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // Bounded memory: the operator's peak RSS over the run (restarts included).
    expect(report.memory.maxBytes).toBeLessThan(768 * 2 ** 20);
    expect(report.succeeded).toBe(JOBS);
  }, 600_000);
});
