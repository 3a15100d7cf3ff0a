// Leader election against a real Lease: exactly one leader; a graceful stop hands over at once; a
// leader that vanishes without releasing is replaced after the lease duration, not before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { KubeClients } from '../../../src/runtime/kube-client.ts';
import { LeaderElector, type LeaderElectionConfig } from '../../../src/runtime/leader-election.ts';
import { silentLogger } from '../../../src/runtime/logger.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';

interface Candidate {
  readonly elector: LeaderElector;
  readonly log: string[];
  leading: boolean;
}

function candidate(ns: string, identity: string, timings: Partial<LeaderElectionConfig> = {}): Candidate {
  const clients = new KubeClients(adminKubeConfig());
  const c: Candidate = { elector: undefined as unknown as LeaderElector, log: [], leading: false };
  const cfg: LeaderElectionConfig = {
    namespace: ns,
    name: 'tfjob-operator-leader',
    identity,
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 400,
    ...timings,
  };
  (c as { elector: LeaderElector }).elector = new LeaderElector(
    clients,
    cfg,
    {
      onStartedLeading: () => {
        c.leading = true;
        c.log.push('started');
      },
      onStoppedLeading: (reason) => {
        c.leading = false;
        c.log.push(`stopped:${reason}`);
      },
    },
    { logger: silentLogger() },
  );
  return c;
}

describe('LeaderElector', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await createNamespace('lease');
  });
  afterAll(async () => {
    await deleteNamespace(ns);
  });

  it('elects exactly one leader and hands over immediately on release', async () => {
    // A long lease: a standby that waited for it to expire would take 15 s, so a handover well
    // under that is the release at work, however slow a loaded machine makes each API call (a
    // 3 s lease with a 2 s bound flaked at 3.5 s on a busy CI machine). It also keeps a's
    // renewals far from their deadline while b campaigns.
    const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 400 };
    const a = candidate(ns, 'a', timings);
    const b = candidate(ns, 'b', timings);
    const runA = a.elector.run();
    await eventually(async () => a.leading, { what: 'a leading' });
    const runB = b.elector.run();
    // b keeps campaigning but must not lead while a renews.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(a.leading).toBe(true);
    expect(b.leading).toBe(false);

    const released = Date.now();
    await a.elector.stop();
    await runA;
    expect(a.log).toEqual(['started', 'stopped:released']);
    await eventually(async () => b.leading, { what: 'b leading', timeoutMs: timings.leaseDurationMs / 2 });
    // A released lease is taken at b's next try (one retry period and the API calls), not after
    // the lease duration.
    expect(Date.now() - released).toBeLessThan(timings.leaseDurationMs / 2);
    const lease = await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: 'tfjob-operator-leader', namespace: ns });
    expect(lease.spec?.holderIdentity).toBe('b');
    expect(lease.spec?.leaseTransitions).toBe(0);
    await b.elector.stop();
    await runB;
  });

  it('takes over from a leader that disappeared only after the lease expires', async () => {
    const name = 'tfjob-operator-leader';
    const leaseApi = adminKubeConfig().makeApiClient(CoordinationV1Api);
    // A leader that "crashed": its lease was renewed just now and will never be renewed again.
    await leaseApi.createNamespacedLease({
      namespace: ns,
      body: {
        metadata: { name: `${name}-crash` },
        spec: { holderIdentity: 'crashed', leaseDurationSeconds: 3, renewTime: new V1MicroTime(), acquireTime: new V1MicroTime() },
      },
    });
    const c = candidate(ns, 'c');
    const cfgName = `${name}-crash`;
    const crashy = new LeaderElector(
      new KubeClients(adminKubeConfig()),
      {
        namespace: ns,
        name: cfgName,
        identity: 'c',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 300,
      },
      {
        onStartedLeading: () => {
          c.leading = true;
        },
        onStoppedLeading: () => {
          c.leading = false;
        },
      },
      { logger: silentLogger() },
    );
    const started = Date.now();
    const run = crashy.run();
    await eventually(async () => c.leading, { what: 'c leading', timeoutMs: 15_000 });
    const waited = Date.now() - started;
    // Never before the lease duration measured from our first observation, and not a multiple of
    // it after (the margin is for API calls on a loaded machine, not for a second lease period).
    expect(waited).toBeGreaterThanOrEqual(3_000);
    expect(waited).toBeLessThan(9_000);
    const lease = await leaseApi.readNamespacedLease({ name: cfgName, namespace: ns });
    expect(lease.spec?.holderIdentity).toBe('c');
    expect(lease.spec?.leaseTransitions).toBe(1);
    await crashy.stop();
    await run;
  });

  it('stops leading when it cannot renew within the renew deadline', async () => {
    const d = candidate(ns, 'd', { name: 'tfjob-operator-leader-lost' });
    const run = d.elector.run();
    await eventually(async () => d.leading, { what: 'd leading' });
    // Someone else takes the lease by force (e.g. an admin); every renew of d now conflicts.
    const leaseApi = adminKubeConfig().makeApiClient(CoordinationV1Api);
    const steal = async () => {
      const lease = await leaseApi.readNamespacedLease({ name: 'tfjob-operator-leader-lost', namespace: ns });
      await leaseApi.replaceNamespacedLease({
        name: 'tfjob-operator-leader-lost',
        namespace: ns,
        body: { ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: new V1MicroTime(), leaseDurationSeconds: 30 } },
      });
    };
    await eventually(
      async () => {
        await steal();
        return true;
      },
      { what: 'steal the lease' },
    );
    await eventually(async () => !d.leading, { what: 'd to stop leading', timeoutMs: 10_000 });
    expect(d.log).toEqual(['started', 'stopped:lost']);
    await run;
  });
});
