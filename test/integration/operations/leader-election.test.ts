// Leader election across real operator processes (`node src/cli/main.ts run --leader-elect`), as two
// replicas of the Deployment run it, with a ServiceAccount token bound to config/rbac:
// - exactly one acts: one lease holder, one leader_election_master_status 1, every event from it,
//   no reconcile and no scheduling pass on the standby;
// - SIGKILL of the leader: the standby takes over after the lease expires (never earlier) and within
//   the lease duration plus a retry, then finishes every job without handling any twice;
// - SIGTERM of the leader: it releases the lease (empty holder) and exits 0, a standby takes over at
//   once instead of waiting for expiry;
// - a leader whose lease is taken away stops acting and exits 1.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoordinationV1Api, EventsV1Api, V1MicroTime, Watch, type V1Lease } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, exitPod, uniqueName } from '../../support/kube.ts';
import { createTFJob, jobPods, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { sumOf } from '../../support/prometheus.ts';
import {
  createNodePool,
  installOperatorRbac,
  onPool,
  serviceAccountToken,
  writeTokenKubeconfig,
  type NodePool,
  type OperatorRbac,
} from '../install/helpers.ts';

const LEASE = 'tfjob-operator.kubeflow.org';
const LEASE_MS = 8_000;
const RETRY_MS = 1_000;
/** Slack for process scheduling on a loaded machine; the bounds below are semantic, not speed. */
const TOLERANCE_MS = 4_000;

describe('leader election between operator processes', () => {
  let ns: string;
  let pool: NodePool;
  let rbac: OperatorRbac;
  let dir: string;
  let kubeconfig: string;
  const processes: OperatorChild[] = [];
  const leases = () => adminKubeConfig().makeApiClient(CoordinationV1Api);
  const lease = () => leases().readNamespacedLease({ name: LEASE, namespace: ns });
  let leader: OperatorChild;
  let standby: OperatorChild;

  const start = async (identity: string) => {
    const p = await OperatorChild.start(identity, kubeconfig, [
      '--namespace',
      ns,
      '--policy',
      'ours',
      ...pool.operatorFlags,
      '--leader-elect',
      '--leader-election-namespace',
      ns,
      '--leader-election-lease-duration',
      `${LEASE_MS}ms`,
      '--leader-election-renew-deadline',
      '6s',
      '--leader-election-retry-period',
      `${RETRY_MS}ms`,
    ]);
    processes.push(p);
    return p;
  };
  const leaderStatus = async (p: OperatorChild) => sumOf(await p.metrics(), 'leader_election_master_status', { name: LEASE });
  const ready = (p: OperatorChild) =>
    eventually(async () => (await p.probe('/readyz')).status === 200, { timeoutMs: 60_000, what: `${p.name} ready` });
  const job = (name: string) =>
    onPool(tfjob(name, { PS: 1, Worker: 2 }, { restartPolicy: 'OnFailure', resources: { cpu: '500m', memory: '512Mi' } }), pool);

  /** The operator's events in the namespace: who reported them, and how often (series included). */
  const events = async () => {
    const list = await adminKubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
    return list.items
      .filter((e) => e.reportingController === 'tfjob-controller')
      .map((e) => ({ reason: e.reason ?? '', note: e.note ?? '', instance: e.reportingInstance ?? '', count: e.series?.count ?? 1 }));
  };

  beforeAll(async () => {
    ns = await createNamespace('le');
    const cluster = clusterState();
    rbac = await installOperatorRbac({
      kubectlPath: cluster.kubectl,
      kubeconfig: cluster.kubeconfig,
      admin: adminKubeConfig(),
      namespace: ns,
      prefix: uniqueName('le'),
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-le-'));
    kubeconfig = writeTokenKubeconfig(dir, 'operator', cluster, await serviceAccountToken(adminKubeConfig(), ns, rbac.serviceAccount));
    pool = await createNodePool('le', 2, { cpu: '4', memory: '16Gi' });
  });
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') for (const p of processes) process.stderr.write(`${p.tail()}\n`);
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await deleteNamespace(ns);
    await rbac.cleanup();
    await pool.delete();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets exactly one of two replicas act', async () => {
    const [a, b] = await Promise.all([start('replica-a'), start('replica-b')]);
    const holder = await eventually(
      async () => {
        const h = (await lease()).spec?.holderIdentity ?? '';
        return h === '' ? false : h;
      },
      { timeoutMs: 60_000, what: 'a lease holder' },
    );
    [leader, standby] = holder === a.name ? [a, b] : [b, a];
    expect([a.name, b.name]).toContain(holder);
    await Promise.all([ready(a), ready(b)]);
    expect(await leaderStatus(leader)).toBe(1);
    expect(await leaderStatus(standby)).toBe(0);

    for (const name of ['one', 'two', 'three']) await createTFJob(ns, job(name));
    for (const name of ['one', 'two', 'three']) {
      await waitForPods(ns, name, 3);
      await waitForCondition(ns, name, 'Running');
    }
    await exitPod(ns, 'one-worker-0', 0);
    await waitForCondition(ns, 'one', 'Succeeded');

    // Everything was done by the leader; the standby only kept its caches warm.
    const seen = await eventually(
      async () => {
        const es = await events();
        return es.some((e) => e.reason === 'TFJobSucceeded') && es.filter((e) => e.reason === 'SuccessfulCreatePod').length >= 9
          ? es
          : false;
      },
      { what: 'the events of the first jobs' },
    );
    expect(seen.filter((e) => e.reason === 'SuccessfulCreatePod')).toHaveLength(9);
    expect(new Set(seen.map((e) => e.instance))).toEqual(new Set([leader.name]));
    const [lm, sm] = await Promise.all([leader.metrics(), standby.metrics()]);
    expect(sumOf(lm, 'controller_runtime_reconcile_total')).toBeGreaterThan(0);
    expect(sumOf(sm, 'controller_runtime_reconcile_total')).toBe(0);
    expect(sumOf(lm, 'tfjob_operator_scheduling_pass_duration_seconds_count')).toBeGreaterThan(0);
    expect(sumOf(sm, 'tfjob_operator_scheduling_pass_duration_seconds_count')).toBe(0);
    expect((await lease()).spec?.holderIdentity).toBe(leader.name);
  });

  it('hands over to the standby when the leader is killed, after the lease expires and not before', async () => {
    const before = new Map((await jobPods(ns, 'two')).concat(await jobPods(ns, 'three')).map((p) => [p.metadata!.name!, p.metadata!.uid!]));
    expect(before.size).toBe(6);
    const last = await lease();
    const lastRenew = new Date(last.spec!.renewTime!).getTime();
    expect((await leader.kill('SIGKILL')).signal).toBe('SIGKILL');

    const taken = await eventually(
      async () => {
        const l = await lease();
        return l.spec?.holderIdentity === standby.name ? l : false;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'the standby to take the lease' },
    );
    const acquired = new Date(taken.spec!.acquireTime!).getTime();
    // Never before the lease expired (same clock: every process runs on this machine) ...
    expect(acquired - lastRenew).toBeGreaterThanOrEqual(LEASE_MS);
    // ... and within the lease duration, give or take the retry period it polls at.
    expect(acquired - lastRenew).toBeLessThan(LEASE_MS + 2 * RETRY_MS + TOLERANCE_MS);
    expect(taken.spec?.leaseTransitions).toBe((last.spec?.leaseTransitions ?? 0) + 1);
    await eventually(async () => (await leaderStatus(standby)) === 1, { what: 'the new leader reporting master_status 1' });

    // The new leader carries on: the running jobs finish, a new one runs from start to end.
    await createTFJob(ns, job('four'));
    await waitForPods(ns, 'four', 3);
    for (const name of ['two', 'three', 'four']) {
      await exitPod(ns, `${name}-worker-0`, 0);
      await waitForCondition(ns, name, 'Succeeded');
    }

    // Nothing handled twice: the pods of the jobs it inherited are the very same pods, and every
    // pod of every job was created exactly once, by one replica or the other.
    const after = new Map((await jobPods(ns, 'two')).concat(await jobPods(ns, 'three')).map((p) => [p.metadata!.name!, p.metadata!.uid!]));
    expect(after).toEqual(before);
    const seen = await eventually(
      async () => {
        const es = await events();
        return es.filter((e) => e.reason === 'TFJobSucceeded').length >= 4 ? es : false;
      },
      { what: 'TFJobSucceeded events of all four jobs' },
    );
    const creates = new Map<string, number>();
    for (const e of seen.filter((x) => x.reason === 'SuccessfulCreatePod')) creates.set(e.note, (creates.get(e.note) ?? 0) + e.count);
    expect(creates.size).toBe(12);
    expect([...creates.values()].every((n) => n === 1)).toBe(true);
    expect(seen.filter((e) => e.note.startsWith('Created pod: four-')).every((e) => e.instance === standby.name)).toBe(true);
    expect(
      seen
        .filter((e) => e.reason === 'TFJobSucceeded')
        .map((e) => e.note)
        .sort(),
    ).toHaveLength(4);
    expect(seen.filter((e) => e.instance === standby.name && /^Created pod: (one|two|three)-/.test(e.note))).toEqual([]);
    leader = standby;
  });

  it('releases the lease on SIGTERM so that a standby takes over at once', async () => {
    standby = await start('replica-c');
    await ready(standby);
    expect(await leaderStatus(standby)).toBe(0);
    // Watch the lease: the release (empty holder) must be visible between the two holders.
    const holders: string[] = [];
    let releasedAt: number | undefined;
    const watch = await new Watch(adminKubeConfig()).watch(
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`,
      { fieldSelector: `metadata.name=${LEASE}` },
      (_type: string, l: V1Lease) => {
        const h = l.spec?.holderIdentity ?? '';
        if (holders.at(-1) !== h) holders.push(h);
        if (h === '' && l.spec?.renewTime !== undefined) releasedAt = new Date(l.spec.renewTime).getTime();
      },
      () => undefined,
    );
    try {
      await eventually(async () => holders.length > 0, { what: 'the lease watch' });
      const exit = await leader.kill('SIGTERM');
      expect(exit.code, leader.tail()).toBe(0);
      const messages = leader.messages().map((m) => m.msg);
      expect(messages).toEqual(expect.arrayContaining(['Received signal', 'Stopped workers', 'Released the lease', 'Stopped']));
      // In that order: no new work, in-flight reconciles finished, only then the lease let go.
      const order = ['Received signal', 'Stopped workers', 'Released the lease', 'Stopped'].map((m) => messages.indexOf(m));
      expect([...order].sort((x, y) => x - y)).toEqual(order);

      const taken = await eventually(
        async () => {
          const l = await lease();
          return l.spec?.holderIdentity === standby.name ? l : false;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'the standby to take the released lease' },
      );
      // A handover, not a timeout: the lease went through the released (empty) holder, and the standby
      // took it well within a lease duration of the release. (Measured from the release, not from the
      // leader's last renewal: a loaded machine once took 9 s to drain the leader's workers first.)
      await eventually(async () => holders.at(-1) === standby.name, { what: 'the watch to see the new holder' });
      expect(holders.slice(-3)).toEqual([leader.name, '', standby.name]);
      expect(releasedAt).toBeDefined();
      expect(new Date(taken.spec!.acquireTime!).getTime() - releasedAt!).toBeLessThan(LEASE_MS);
    } finally {
      watch.abort();
    }

    leader = standby;
    await eventually(async () => (await leaderStatus(leader)) === 1, { what: 'master_status 1' });
    await createTFJob(ns, job('five'));
    await waitForPods(ns, 'five', 3);
    await exitPod(ns, 'five-worker-0', 0);
    await waitForCondition(ns, 'five', 'Succeeded');
  });

  it('stops acting and exits 1 when the lease is taken away from it', async () => {
    // The leader renews every second: a replace based on an older read gets 409 Conflict; read again.
    await eventually(
      async () => {
        const current = await lease();
        try {
          await leases().replaceNamespacedLease({
            name: LEASE,
            namespace: ns,
            body: {
              ...current,
              spec: { ...current.spec, holderIdentity: 'someone-else', renewTime: new V1MicroTime(), leaseDurationSeconds: 60 },
            },
          });
          return true;
        } catch (err) {
          if ((err as { code?: number }).code === 409) return false;
          throw err;
        }
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the lease taken away (no 409 from a renewal in between)' },
    );
    const exit = await leader.exited;
    expect(exit.code, leader.tail()).toBe(1);
    expect(leader.messages().map((m) => m.msg)).toContain('Leadership lost; exiting so a restart rejoins as a standby');
    expect((await lease()).spec?.holderIdentity).toBe('someone-else');
  });
});
