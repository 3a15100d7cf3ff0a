// A ClusterQueue's namespaceSelector on the real API server: a LocalQueue in a namespace the selector
// does not select cannot spend the queue's quota. Its TFJob waits, its status and a Waiting event say
// which selector and which namespace; a job of a selected namespace runs; labelling the namespace
// (seen through the operator's namespace cache) lets the waiting job in; removing a label later does
// not revoke an admission.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_QUEUES, LABEL_QUEUE_NAME, QUEUE_GROUP, QUEUE_VERSION, type ClusterQueue } from '../../../src/api/queues/types.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, uniqueName } from '../../support/kube.ts';
import { createClusterQueue, createLocalQueue, deleteClusterQueue } from '../../support/queues.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, livePods, tfjob, waitForCondition, waitForJobEvents, type TestTFJob } from '../../support/tfjob.ts';

const custom = () => adminKubeConfig().makeApiClient(CustomObjectsApi);
const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

describe('ClusterQueue namespaceSelector (ours)', () => {
  let inside: string;
  let outside: string;
  let pool: Pool;
  let operator: Operator;
  const cq = uniqueName('team-a');
  const team = uniqueName('a');

  const job = (name: string): TestTFJob => {
    const j = onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '1', memory: '1Gi' } }), pool);
    return { ...j, metadata: { ...j.metadata, labels: { [LABEL_QUEUE_NAME]: 'q' } } };
  };
  const clusterQueue = async () =>
    (await custom().getClusterCustomObject({
      group: QUEUE_GROUP,
      version: QUEUE_VERSION,
      plural: CLUSTER_QUEUES,
      name: cq,
    })) as ClusterQueue;
  const labelTeam = (ns: string) =>
    core().patchNamespace(
      { name: ns, body: { metadata: { labels: { team } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

  beforeAll(async () => {
    inside = await createNamespace('cq-in');
    outside = await createNamespace('cq-out');
    await labelTeam(inside);
    pool = await createPool('nssel', 1, { cpu: '4', memory: '16Gi' });
    await createClusterQueue(cq, { nominalQuota: { cpu: '4' }, namespaceSelector: { matchLabels: { team } } });
    for (const namespace of [inside, outside]) {
      await createLocalQueue(namespace, 'q', cq);
    }
    operator = await startOperator(`${inside},${outside}`, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(inside);
    await deleteNamespace(outside);
    await pool.delete();
    await deleteClusterQueue(cq);
  });

  it('keeps a job of an unselected namespace out of the queue, saying why, and admits one of a selected namespace', async () => {
    const why = `ClusterQueue ${cq} does not admit TFJobs of namespace ${outside}: its labels do not match spec.namespaceSelector team=${team} (LocalQueue ${outside}/q)`;
    await createTFJob(outside, job('out'));
    await createTFJob(inside, job('in'));
    await waitForCondition(inside, 'in', 'Running', { timeoutMs: 60_000 });

    const waiting = await eventually(
      async () => {
        const s = (await getTFJob(outside, 'out')).status?.scheduling as { queue?: string; message?: string } | undefined;
        return s?.message?.includes(why) === true ? s : false;
      },
      { timeoutMs: 30_000, what: 'out says why it waits' },
    );
    expect(waiting.queue).toBe('Waiting');
    const events = await waitForJobEvents(outside, 'out', (es) => es.some((e) => e.reason === 'Waiting'), 'a Waiting event on out');
    expect(events.find((e) => e.reason === 'Waiting')?.message).toContain(why);
    expect(await livePods(outside, 'out')).toEqual([]);

    // The namespace gets the team's label: the namespace cache sees it and the job is admitted.
    await labelTeam(outside);
    await waitForCondition(outside, 'out', 'Running', { timeoutMs: 60_000 });

    // Checked at admission only: `inside` loses the label; a new job there waits (the change is
    // seen), while the admitted one keeps its queue and its quota use.
    await core().patchNamespace(
      { name: inside, body: { metadata: { labels: { team: null } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await createTFJob(inside, job('late'));
    await eventually(
      async () =>
        ((await getTFJob(inside, 'late')).status?.scheduling as { message?: string } | undefined)?.message?.includes(
          `ClusterQueue ${cq} does not admit TFJobs of namespace ${inside}`,
        ) === true,
      { timeoutMs: 30_000, what: 'late waits: the label change is seen' },
    );
    expect((await getTFJob(inside, 'in')).status?.scheduling).toMatchObject({ clusterQueue: cq });
    await eventually(async () => JSON.stringify((await clusterQueue()).status?.usage) === JSON.stringify({ cpu: '2' }), {
      timeoutMs: 30_000,
      what: 'the queue still counts in and out (2 cpu)',
    });
  }, 180_000);
});
