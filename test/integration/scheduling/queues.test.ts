// Queues with quotas end to end (policy ours): two ClusterQueues of 5 cpu in one cohort on a 10-cpu
// node. Team a's elastic job borrows b's idle quota; when b's job arrives, a's borrowed workers are
// scaled in for it (reclaim) and both queues' statuses say what each holds. A job naming a LocalQueue
// that does not exist waits saying so, and runs once the LocalQueue is created.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_QUEUES, LABEL_QUEUE_NAME, QUEUE_GROUP, QUEUE_VERSION, type ClusterQueue } from '../../../src/api/queues/types.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, eventually, uniqueName } from '../../support/kube.ts';
import { createClusterQueue, createLocalQueue, deleteClusterQueue } from '../../support/queues.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import {
  createTFJob,
  elasticJob,
  getTFJob,
  livePods,
  tfjob,
  waitForCondition,
  waitForJobEvents,
  type TestTFJob,
} from '../../support/tfjob.ts';

const one = { cpu: '1', memory: '1Gi' };
const api = () => adminKubeConfig().makeApiClient(CustomObjectsApi);
const inQueue = (job: TestTFJob, queue: string): TestTFJob => ({
  ...job,
  metadata: { ...job.metadata, labels: { [LABEL_QUEUE_NAME]: queue } },
});
const runningWorkers = async (ns: string, job: string) =>
  (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-') && p.status?.phase === 'Running').length;
const clusterQueue = async (name: string) =>
  (await api().getClusterCustomObject({ group: QUEUE_GROUP, version: QUEUE_VERSION, plural: CLUSTER_QUEUES, name })) as ClusterQueue;
const scheduling = async (ns: string, name: string) =>
  (await getTFJob(ns, name)).status?.scheduling as { queue?: string; message?: string } | undefined;

/** The kubectl plugin as a user runs it: the pinned kubectl on PATH, our kubeconfig. */
function plugin(args: readonly string[]): { code: number; out: string } {
  const { kubectl, kubeconfig } = clusterState();
  const res = spawnSync('python3', [path.join(REPO_ROOT, 'plugins', 'kubectl-tfjob'), '--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${path.dirname(kubectl)}:${process.env.PATH ?? ''}`,
      TFJOB_OPERATOR_CLI: `${process.execPath} ${path.join(REPO_ROOT, 'src', 'cli', 'main.ts')}`,
    },
  });
  return { code: res.status ?? 1, out: `${res.stdout}${res.stderr}` };
}

describe('queues with quotas (ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const cqA = uniqueName('team-a');
  const cqB = uniqueName('team-b');
  const cohort = uniqueName('cohort');

  beforeAll(async () => {
    ns = await createNamespace('queues');
    pool = await createPool('queues', 1, { cpu: '10', memory: '40Gi' });
    for (const name of [cqA, cqB]) {
      await createClusterQueue(name, { cohort, nominalQuota: { cpu: '5' } });
    }
    await createLocalQueue(ns, 'a', cqA);
    await createLocalQueue(ns, 'b', cqB);
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--scale-out-cooldown',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    for (const name of [cqA, cqB]) await deleteClusterQueue(name);
  });

  it('lends an idle queue quota, takes it back for its own job, and reports both queues', async () => {
    // a1: PS + up to 8 workers of 1 cpu: 9 cpu, 4 of them borrowed from b.
    await createTFJob(ns, onPool(inQueue(elasticJob('a1', { ps: one, worker: one, min: 1, max: 8 }), 'a'), pool));
    await eventually(async () => (await runningWorkers(ns, 'a1')) === 8, { what: 'a1 at 8 workers', timeoutMs: 60_000 });
    await eventually(async () => (await clusterQueue(cqA)).status?.borrowed?.cpu === '4', { what: 'a borrows 4 cpu', timeoutMs: 30_000 });
    expect((await clusterQueue(cqA)).status).toMatchObject({ admittedJobs: 1, pendingJobs: 0, usage: { cpu: '9' } });
    expect((await getTFJob(ns, 'a1')).status?.scheduling).toMatchObject({ clusterQueue: cqA });

    // b1: PS + 2 workers = 3 cpu, within b's quota: two of a1's borrowed workers are reclaimed for it.
    await createTFJob(ns, onPool(inQueue(elasticJob('b1', { ps: one, worker: one, min: 2, max: 2 }), 'b'), pool));
    await waitForCondition(ns, 'b1', 'Running', { timeoutMs: 60_000 });
    const events = await waitForJobEvents(ns, 'a1', (es) => es.some((e) => e.reason === 'Preempted'), 'a1 scaled in', 30_000);
    expect(events.find((e) => e.reason === 'Preempted')?.message).toContain(
      `queue ${cqA} had borrowed them from its cohort, and queue ${cqB} takes them back for ${ns}/b1`,
    );
    await eventually(async () => (await runningWorkers(ns, 'a1')) === 6, { what: 'a1 back to 6 workers', timeoutMs: 30_000 });
    await eventually(async () => (await clusterQueue(cqB)).status?.usage?.cpu === '3', { what: 'b holds 3 cpu', timeoutMs: 30_000 });
    expect((await clusterQueue(cqA)).status).toMatchObject({ usage: { cpu: '7' }, borrowed: { cpu: '2' } });
    expect((await clusterQueue(cqB)).status?.conditions).toEqual([expect.objectContaining({ type: 'Active', status: 'True' }) as unknown]);
  });

  it('keeps a job that names a missing LocalQueue waiting, saying so, and runs it once the queue exists', async () => {
    await createTFJob(ns, onPool(inQueue(elasticJob('c1', { ps: one, worker: one, min: 1, max: 1 }), 'later'), pool));
    await eventually(async () => (await scheduling(ns, 'c1'))?.message?.includes(`LocalQueue ${ns}/later`) === true, {
      what: 'c1 says why it waits',
      timeoutMs: 30_000,
    });
    expect((await scheduling(ns, 'c1'))?.queue).toBe('Waiting');
    expect(await livePods(ns, 'c1')).toEqual([]);
    // b has 2 cpu of its quota left (a borrows them): they are reclaimed for c1.
    await createLocalQueue(ns, 'later', cqB);
    await waitForCondition(ns, 'c1', 'Running', { timeoutMs: 60_000 });
    await eventually(async () => (await clusterQueue(cqA)).status?.borrowed?.cpu === undefined, {
      what: 'a no longer borrows',
      timeoutMs: 30_000,
    });
  });

  it("answers a user through the kubectl plugin: queues, a job's queue and history, what one pass would do", async () => {
    await createTFJob(ns, onPool(inQueue(elasticJob('d1', { ps: one, worker: one, min: 4, max: 4 }), 'a'), pool));
    await eventually(async () => (await clusterQueue(cqA)).status?.pendingJobs === 1, { what: 'd1 waits in a', timeoutMs: 30_000 });
    // The queue's status and the job's are written separately: under load the job's reason comes later.
    await eventually(async () => (await scheduling(ns, 'd1'))?.message?.includes('waiting for quota') === true, {
      what: 'd1 says it waits for quota',
      timeoutMs: 30_000,
    });

    const queues = plugin(['queues', '-n', ns]);
    expect(queues.code, queues.out).toBe(0);
    expect(queues.out).toMatch(new RegExp(`${cqA}\\s+${cohort}\\s+1\\s+1\\s+cpu 5/5`));
    expect(queues.out).toMatch(new RegExp(`${ns}\\s+later\\s+${cqB}`));

    const why = plugin(['why', 'd1', '-n', ns]);
    expect(why.code, why.out).toBe(0);
    expect(why.out).toContain(`queue: LocalQueue a -> ClusterQueue ${cqA}, position 1`);
    expect(why.out).toContain('waiting for quota: queue');

    const line = plugin(['line', cqA]);
    expect(line.out).toMatch(new RegExp(`1\\s+${ns}/d1\\s+.*waiting for quota`));

    const history = plugin(['history', 'a1', '-n', ns]);
    expect(history.code, history.out).toBe(0);
    expect(history.out).toContain('Preempted');
    expect(history.out).toMatch(/now: Running, weight [0-9.]+, workers 4\/1\/8/);

    const whatIf = plugin(['what-if', '--policy', 'ours', ...pool.operatorFlags]);
    expect(whatIf.code, whatIf.out).toBe(0);
    expect(whatIf.out).toContain('what-if: one ours pass');
    expect(whatIf.out).toMatch(new RegExp(`waiting  ${ns}/d1 \\[queue ${cqA} #1\\]`));
  });
});

describe('fair share among borrowing queues (ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const names = ['x', 'y', 'z'].map((q) => uniqueName(`fair-${q}`));
  const cohort = uniqueName('fair');

  beforeAll(async () => {
    ns = await createNamespace('queues-fair');
    // 6 cpu; three queues of 2 cpu in one cohort; z stays idle.
    pool = await createPool('fair', 1, { cpu: '6', memory: '24Gi' });
    for (const name of names) {
      await createClusterQueue(name, { cohort, nominalQuota: { cpu: '2' } });
    }
    for (const [lq, cq] of [
      ['x', names[0]!],
      ['y', names[1]!],
    ] as const) {
      await createLocalQueue(ns, lq, cq);
    }
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--scale-out-cooldown',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    for (const name of names) await deleteClusterQueue(name);
  });

  it('shares what the idle queue lends between the two that borrow, whoever came first', async () => {
    // x alone: PS + 5 workers, all 6 cpu (z's 2 and y's 2 borrowed).
    await createTFJob(ns, onPool(inQueue(elasticJob('x1', { ps: one, worker: one, min: 1, max: 8 }), 'x'), pool));
    await eventually(async () => (await runningWorkers(ns, 'x1')) === 5, { what: 'x1 at 5 workers', timeoutMs: 60_000 });
    // y arrives and wants as much: its own 2 cpu back, then half of z's 2 from x.
    await createTFJob(ns, onPool(inQueue(elasticJob('y1', { ps: one, worker: one, min: 1, max: 8 }), 'y'), pool));
    await eventually(async () => (await runningWorkers(ns, 'y1')) === 2 && (await runningWorkers(ns, 'x1')) === 2, {
      what: 'x1 and y1 at 2 workers each (3 cpu each)',
      timeoutMs: 60_000,
    });
    await eventually(async () => (await clusterQueue(names[1]!)).status?.borrowed?.cpu === '1', {
      what: 'y borrows 1 cpu',
      timeoutMs: 30_000,
    });
    expect((await clusterQueue(names[0]!)).status).toMatchObject({ usage: { cpu: '3' }, borrowed: { cpu: '1' } });
    // x1 filled the cluster all along: every worker y1 got beyond its minimum came from x1, and its
    // ScaledOut events say so rather than "idle capacity" (only x1's Preempted events used to).
    const scaledOut = (await waitForJobEvents(ns, 'y1', (es) => es.some((e) => e.reason === 'ScaledOut'), 'y1 scaled out'))
      .filter((e) => e.reason === 'ScaledOut')
      .map((e) => e.message ?? '');
    for (const m of scaledOut) {
      expect(m).toContain(`into room made by scaling in ${ns}/x1 (`);
      expect(m).not.toContain('idle capacity');
    }
  });
});

describe('quota lent to a queue that cannot give it back (ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const [lender, borrower] = ['lender', 'borrower'].map((q) => uniqueName(`lent-${q}`)) as [string, string];
  const cohort = uniqueName('lent');

  beforeAll(async () => {
    ns = await createNamespace('queues-lent');
    pool = await createPool('lent', 1, { cpu: '12', memory: '48Gi' });
    for (const name of [lender, borrower]) {
      await createClusterQueue(name, { cohort, nominalQuota: { cpu: '6' } });
    }
    for (const [lq, cq] of [
      ['lender', lender],
      ['borrower', borrower],
    ] as const) {
      await createLocalQueue(ns, lq, cq);
    }
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
    for (const name of [lender, borrower]) await deleteClusterQueue(name);
  });

  it('a job waiting for quota reads each unit once and names the quota its queue lent', async () => {
    // The borrower's fixed-size job holds 8 cpu (2 of the lender's), and a fixed size is its minimum: never reclaimed.
    await createTFJob(ns, onPool(inQueue(tfjob('big', { PS: 1, Worker: 7 }, { resources: one }), 'borrower'), pool));
    await waitForCondition(ns, 'big', 'Running', { timeoutMs: 60_000 });
    await createTFJob(ns, onPool(inQueue(tfjob('l1', { PS: 1, Worker: 3 }, { resources: one }), 'lender'), pool));
    await waitForCondition(ns, 'l1', 'Running', { timeoutMs: 60_000 });
    await createTFJob(ns, onPool(inQueue(tfjob('l2', { Worker: 1 }, { resources: one }), 'lender'), pool));

    const why =
      `waiting for quota: queue ${lender} has 0 cpu free for it (4 cpu in use, quota 6 cpu, 2 cpu of it lent to queue ${borrower}; ` +
      'its cohort has 0 cpu left to lend); needs 1 cpu';
    await eventually(async () => (await scheduling(ns, 'l2'))?.message?.includes(why) === true, {
      what: 'l2 says why it waits',
      timeoutMs: 30_000,
    });
    const events = await waitForJobEvents(ns, 'l2', (es) => es.some((e) => e.reason === 'Waiting'), 'a Waiting event on l2');
    expect(events.find((e) => e.reason === 'Waiting')?.message).toContain(why);
    // The same numbers as the queue's own status and the kubectl plugin: 4 of 6 in use.
    expect((await clusterQueue(lender)).status?.usage).toEqual({ cpu: '4' });
    // The plugin's PENDING/ADMITTED columns come from the queue status writer, which may lag a pass.
    const row = new RegExp(`${lender}\\s+${cohort}\\s+1\\s+1\\s+cpu 4/6`);
    await eventually(async () => row.test(plugin(['queues', '-n', ns]).out), {
      what: 'the plugin showing the lender 4/6',
      timeoutMs: 30_000,
    });
  });
});
