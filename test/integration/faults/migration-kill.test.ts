// Fault: the operator SIGKILLed in the middle of a SpeCon migration (--vertical-policy specon), at the
// moment a pod watch first sees the old worker carrying the removal mark or a deletionTimestamp, and a
// new operator (same flags) started at once. The scenario of vertical-specon.test.ts provokes the move:
// a fast and a slow job contend on node A, then a roomy node appears. Nothing may be lost or doubled:
// one pod and one service per slot, the moved worker back under its name with its TF_CONFIG (a new
// UID), never two live pods of one slot (the invariant monitor), both jobs Succeed, no orphan, and what
// the events and status.migration say about the move is true of where the replacement runs.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_REMOVAL } from '../../../src/api/v1/constants.ts';
import { InvariantMonitor } from '../../support/invariants.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { addPoolNodes, createPool, type Pool } from '../../support/pool.ts';
import { steadyWatch } from '../../support/steady-watch.ts';
import { SPECON_OPERATOR_FLAGS, feedFastAndSlow, speconJob, tfConfigOf } from '../../support/specon-jobs.ts';
import { coreApi, createTFJob, exitLivePods, getTFJob, jobEvents, jobPods, waitForCondition, waitForPods } from '../../support/tfjob.ts';

interface Migration {
  migrations?: number;
  last?: { pod?: string; from?: string; to?: string; state?: string; placedOn?: string };
}

const MOVE_TIMEOUT_MS = 240_000;
const MOVED = 'slow-worker-1';

describe('fault: operator SIGKILLed during a SpeCon migration', () => {
  let ns: string;
  let pool: Pool;
  let monitor: InvariantMonitor | undefined;
  const operators: OperatorChild[] = [];
  let stopWriting: (() => void) | undefined;
  let stopWatch: (() => void) | undefined;

  const start = async () => {
    const op = await OperatorChild.start(`migkill-${operators.length}`, clusterState().kubeconfig, [
      '--namespace',
      ns,
      ...SPECON_OPERATOR_FLAGS,
      ...pool.operatorFlags,
    ]);
    operators.push(op);
    return op;
  };

  beforeAll(async () => {
    ns = await createNamespace('migkill');
    pool = await createPool('migkill', 1, { cpu: '4', memory: '32Gi' });
    // A function: the roomy node joins the pool later.
    monitor = await InvariantMonitor.start({
      kubeConfig: adminKubeConfig(),
      namespace: ns,
      nodes: (n) => pool.nodes.includes(n),
      auditLog: clusterState().auditLog,
    });
  }, 120_000);
  afterAll(async () => {
    stopWriting?.();
    stopWatch?.();
    monitor?.stop();
    for (const op of operators) await op.kill('SIGTERM');
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('loses and doubles nothing, and says truly where the worker went', async () => {
    const nodeA = pool.nodes[0]!;
    const first = await start();
    // On A (4 cores) the limits add up to 1 + 1 + 4 cores: contended. fast's limit is the whole node.
    await createTFJob(ns, speconJob('slow', 2, { request: '500m', limit: '1' }, true, pool));
    await createTFJob(ns, speconJob('fast', 1, { request: '200m', limit: '4' }, false, pool));
    await waitForPods(ns, 'slow', 2);
    await waitForPods(ns, 'fast', 1);
    const before = (await jobPods(ns, 'slow')).find((p) => p.metadata?.name === MOVED);
    expect(before?.spec?.nodeName).toBe(nodeA);
    stopWriting = await feedFastAndSlow(ns);

    // SIGKILL from the watch callback itself: the first sighting of the old worker marked or terminating.
    let killedAt: string | undefined;
    const boundOn = new Set<string>();
    // Every version of the worker from now on, each handed over in the watch's own callback.
    stopWatch = await steadyWatch(`/api/v1/namespaces/${ns}/pods`, { fieldSelector: `metadata.name=${MOVED}` }, (_type, obj) => {
      const pod = obj as V1Pod;
      if (pod.spec?.nodeName !== undefined) boundOn.add(pod.spec.nodeName);
      if (killedAt !== undefined || pod.metadata?.uid !== before?.metadata?.uid) return;
      const mark = pod.metadata?.annotations?.[ANNOTATION_REMOVAL];
      const deleting = pod.metadata?.deletionTimestamp != null;
      if (mark === undefined && !deleting) return;
      void first.kill('SIGKILL');
      killedAt = `${mark === undefined ? '' : `removal=${mark}`}${deleting ? ' deleting' : ''}`.trim();
    });
    const [roomy] = await addPoolNodes(pool, 'roomy', 1, { cpu: '4', memory: '32Gi' });
    const sighting = await eventually(async () => killedAt ?? false, {
      timeoutMs: MOVE_TIMEOUT_MS,
      what: `${MOVED} marked or terminating\n${first.tail()}`,
    });
    expect(sighting).toMatch(/^(removal=migration)?( ?deleting)?$/);
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = await start();

    // The slot is filled again, by a new pod of the same name and TF_CONFIG, and nothing else.
    const pods = await eventually(
      async () => {
        const all = await jobPods(ns, 'slow');
        const moved = all.find((p) => p.metadata?.name === MOVED);
        const settled = all.length === 2 && all.every((p) => p.metadata?.deletionTimestamp == null && p.status?.phase === 'Running');
        return settled && moved?.metadata?.uid !== before?.metadata?.uid ? all : false;
      },
      { timeoutMs: MOVE_TIMEOUT_MS, what: `${MOVED} re-created and Running\n${second.tail()}` },
    );
    const replacement = pods.find((p) => p.metadata?.name === MOVED);
    expect(tfConfigOf(replacement)).toBeDefined();
    expect(tfConfigOf(replacement)).toBe(tfConfigOf(before));
    const services = await coreApi().listNamespacedService({ namespace: ns, labelSelector: 'training.kubeflow.org/job-name=slow' });
    expect(services.items.map((s) => s.metadata?.name).sort()).toEqual(['slow-worker-0', 'slow-worker-1']);

    // What the operators said, reported; whatever it is must be true of where the worker was bound.
    const events = (await jobEvents(ns, 'slow'))
      .filter((e) => ['WorkerMigrating', 'WorkerMigrated', 'MigrationTargetLost'].includes(e.reason ?? ''))
      .map((e) => ({ reason: e.reason ?? '', by: e.reportingInstance ?? e.source?.host ?? '-', message: e.message ?? '' }));
    const migration = ((await getTFJob(ns, 'slow')).status as { migration?: Migration } | undefined)?.migration;
    console.log(
      `[migration-kill] killed at ${sighting}; replacement on ${replacement?.spec?.nodeName ?? '-'} (A ${nodeA}, roomy ${roomy!}); ` +
        `bound on ${[...boundOn].join(',')}; status.migration ${JSON.stringify(migration)}; events ${JSON.stringify(events)}`,
    );
    for (const e of events.filter((x) => x.reason === 'WorkerMigrated')) {
      expect([...boundOn], e.message).toContain(/ re-created on (\S+) /.exec(e.message)?.[1]);
    }
    if (migration?.last?.state === 'Migrated') expect([...boundOn]).toContain(migration.last.to);
    if (migration?.last?.placedOn !== undefined) {
      expect([...boundOn]).toContain(migration.last.placedOn);
      expect(migration.last.placedOn).not.toBe(migration.last.to);
    }

    // Both jobs finish: the workers exit 0.
    stopWriting();
    for (const name of ['slow', 'fast']) await exitLivePods(ns, name, 0);
    for (const name of ['slow', 'fast']) await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 120_000 });
    const report = await monitor!.finish({ orphanGraceMs: 120_000 });
    expect(report.violations).toEqual([]);
    expect(report.gaps).toBe(0);
    expect(report.jobs).toEqual({ total: 2, succeeded: 2, failed: 0 });
    expect(report.deletions.byReason['pod:migration']).toBeGreaterThanOrEqual(1);
    expect(second.running, second.tail()).toBe(true);
  }, 600_000);
});
