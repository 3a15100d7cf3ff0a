// --vertical-policy specon end to end on the local control plane (kwok nodes, logs served through
// `pods/log`): on node A a fast-learning job whose CPU limit is the whole node shares the CPU with a
// barely moving elastic job; SpeCon classifies the slow one Completing (FlowCon's lists) and moves its
// worker 1 to a node with room. First only a node too small to take it without being contended itself
// is there: a refusal, no move. Then a roomy node: the old pod is deleted, the replacement (same name,
// same TF_CONFIG) is bound to it, WorkerMigrated, status.migration and the metric say so, one pod and
// one service per slot; within the cooldown nothing moves again (a refusal says why).
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { addPoolNodes, createPool, type Pool } from '../../support/pool.ts';
import { parseMetrics, sumOf } from '../../support/prometheus.ts';
import { SPECON_OPERATOR_FLAGS, feedFastAndSlow, speconJob, tfConfigOf } from '../../support/specon-jobs.ts';
import { coreApi, createTFJob, getTFJob, jobEvents, jobPods, waitForPods } from '../../support/tfjob.ts';

interface Migration {
  migrations?: number;
  last?: { pod?: string; from?: string; to?: string; state?: string; placedOn?: string; reason?: string };
}

const live = (pods: readonly V1Pod[]) => pods.filter((p) => p.metadata?.deletionTimestamp == null);
const MOVE_TIMEOUT_MS = 240_000;

describe('--vertical-policy specon', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  let nodeA: string;
  let before: V1Pod | undefined;
  let stopWriting: (() => void) | undefined;

  beforeAll(async () => {
    ns = await createNamespace('specon');
    pool = await createPool('specon', 1, { cpu: '4', memory: '32Gi' });
    nodeA = pool.nodes[0]!;
    operator = await startOperator(ns, [...SPECON_OPERATOR_FLAGS, ...pool.operatorFlags]);
    // On A (4 cores) the limits add up to 1 + 1 + 4 cores: contended. fast's limit is the whole node.
    await createTFJob(ns, speconJob('slow', 2, { request: '500m', limit: '1' }, true, pool));
    await createTFJob(ns, speconJob('fast', 1, { request: '200m', limit: '4' }, false, pool));
    await waitForPods(ns, 'slow', 2);
    await waitForPods(ns, 'fast', 1);
    before = (await jobPods(ns, 'slow')).find((p) => p.metadata?.name === 'slow-worker-1');
    stopWriting = await feedFastAndSlow(ns);
  }, 120_000);
  afterAll(async () => {
    stopWriting?.();
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const eventsOf = async (reason: string): Promise<string[]> =>
    (await jobEvents(ns, 'slow')).filter((e) => e.reason === reason).map((e) => e.message ?? '');
  const migrationOf = async (): Promise<Migration | undefined> =>
    ((await getTFJob(ns, 'slow')).status as { migration?: Migration } | undefined)?.migration;
  /** What the operator said and wrote about both jobs: the message of a wait that timed out. */
  const diagnosis = async (): Promise<string> => {
    const parts: string[] = [];
    for (const name of ['slow', 'fast']) {
      const status = (await getTFJob(ns, name)).status as { verticalResize?: { list?: string }; migration?: Migration } | undefined;
      const events = (await jobEvents(ns, name)).map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`);
      parts.push(
        `${name}: list ${status?.verticalResize?.list ?? '-'}, migration ${JSON.stringify(status?.migration)}, events ${JSON.stringify(events)}`,
      );
    }
    return parts.join('\n');
  };
  const found = async (reason: string, accept: (message: string) => boolean): Promise<string> => {
    const hit = (await eventsOf(reason)).find(accept);
    if (hit === undefined) throw new Error(`no ${reason} yet\n${await diagnosis()}`);
    return hit;
  };
  const counted = async (result: string) =>
    sumOf(parseMetrics(await operator.registry.metrics()), 'tfjob_operator_worker_migrations_total', { namespace: ns, result });

  it('with only a node the worker would contend, refuses and moves nothing', async () => {
    expect(before?.spec?.nodeName).toBe(nodeA);
    const [small] = await addPoolNodes(pool, 'small', 1, { cpu: '1', memory: '32Gi' });
    const refusal = await eventually(() => found('WorkerMigrationRefused', (m) => m.includes(`${small!}: would be contended there`)), {
      timeoutMs: MOVE_TIMEOUT_MS,
      what: `a WorkerMigrationRefused naming ${small!}`,
    });
    expect(refusal).toMatch(new RegExp(`^Not moved off ${nodeA}: no node takes slow-worker-1 \\(`));
    expect(await eventsOf('WorkerMigrating')).toEqual([]);
    expect(await migrationOf()).toBeUndefined();
    expect(await counted('migrated')).toBe(0);
    const pods = await jobPods(ns, 'slow');
    expect(pods.map((p) => `${p.metadata?.name ?? ''}@${p.spec?.nodeName ?? ''}/${p.metadata?.uid ?? ''}`)).toEqual([
      `slow-worker-0@${nodeA}/${pods[0]?.metadata?.uid ?? ''}`,
      `slow-worker-1@${nodeA}/${before?.metadata?.uid ?? ''}`,
    ]);
  }, 300_000);

  it('moves worker 1 to a roomy node: same name and TF_CONFIG there, the event, the status and the metric', async () => {
    const [roomy] = await addPoolNodes(pool, 'roomy', 1, { cpu: '4', memory: '32Gi' });
    const migrated = await eventually(() => found('WorkerMigrated', () => true), {
      timeoutMs: MOVE_TIMEOUT_MS,
      what: 'the WorkerMigrated event of slow',
    });
    expect(migrated).toMatch(
      new RegExp(`^slow-worker-1 re-created on ${roomy!} \\(left ${nodeA}; .*SpeCon: ${ns}/slow is Completing .* ${ns}/fast \\(New`),
    );
    expect(await eventsOf('WorkerMigrating')).toEqual([
      expect.stringMatching(new RegExp(`^slow-worker-1 deleted on ${nodeA} to be re-created on ${roomy!}`)),
    ]);
    expect(await eventsOf('MigrationTargetLost')).toEqual([]);
    const status = await eventually(
      async () => {
        const m = await migrationOf();
        return m?.last?.state === 'Migrated' ? m : false;
      },
      { timeoutMs: 60_000, what: 'status.migration of slow Migrated' },
    );
    expect(status).toMatchObject({ migrations: 1, last: { pod: 'slow-worker-1', from: nodeA, to: roomy, state: 'Migrated' } });
    expect(status.last).not.toHaveProperty('placedOn');
    expect(await counted('migrated')).toBe(1);
    expect(await counted('target_lost')).toBe(0);
    // The old pod's deletion finishes: one pod per slot, the replacement on the target, TF_CONFIG unchanged.
    const pods = await eventually(
      async () => {
        const all = await jobPods(ns, 'slow');
        return all.length === 2 && live(all).length === 2 && all.every((p) => p.status?.phase === 'Running') ? all : false;
      },
      { timeoutMs: 60_000, what: 'two running pods of slow and no other' },
    );
    const replacement = pods.find((p) => p.metadata?.name === 'slow-worker-1');
    expect(replacement?.spec?.nodeName).toBe(roomy);
    expect(replacement?.metadata?.uid).not.toBe(before?.metadata?.uid);
    expect(tfConfigOf(replacement)).toBeDefined();
    expect(tfConfigOf(replacement)).toBe(tfConfigOf(before));
    expect(pods.find((p) => p.metadata?.name === 'slow-worker-0')?.spec?.nodeName).toBe(nodeA);
    const services = await coreApi().listNamespacedService({ namespace: ns, labelSelector: 'training.kubeflow.org/job-name=slow' });
    expect(services.items.map((s) => s.metadata?.name).sort()).toEqual(['slow-worker-0', 'slow-worker-1']);
    expect((await jobPods(ns, 'fast')).map((p) => p.spec?.nodeName)).toEqual([nodeA]);
  }, 300_000);

  it('within the cooldown does not move the job again, and says why', async () => {
    const moved = (await jobPods(ns, 'slow')).find((p) => p.metadata?.name === 'slow-worker-1');
    // A still runs fast and slow's worker 0 (limits 4 + 1 cores on 4): contended, so SpeCon looks again.
    const refusal = await eventually(() => found('WorkerMigrationRefused', (m) => m.includes('in its cooldown')), {
      timeoutMs: MOVE_TIMEOUT_MS,
      what: 'the cooldown refusal of slow',
    });
    expect(refusal).toMatch(new RegExp(`^Not moved off ${nodeA}: in its cooldown: moved at \\S+Z \\(cooldown 600s\\)$`));
    // Let the operator read ten more seconds of slow's log (several vertical rounds at 2 s) before looking.
    const stepOf = async () => ((await getTFJob(ns, 'slow')).status as { progress?: { step?: number } } | undefined)?.progress?.step ?? 0;
    const from = await stepOf();
    await eventually(async () => (await stepOf()) >= from + 10, {
      timeoutMs: 120_000,
      what: `slow's status.progress.step past ${from + 10}`,
    });
    expect(await eventsOf('WorkerMigrating')).toHaveLength(1);
    expect((await migrationOf())?.migrations).toBe(1);
    expect(await counted('migrated')).toBe(1);
    const pods = await jobPods(ns, 'slow');
    expect(pods).toHaveLength(2);
    expect(pods.find((p) => p.metadata?.name === 'slow-worker-1')?.metadata?.uid).toBe(moved?.metadata?.uid);
  }, 300_000);
});
