// A pod create the API server refuses with 403. What a cluster admin can lift (PodSecurity, quota, a
// webhook) is retried with capped back-off while the job says what is refused and why (status.scheduling
// reason CreateRefused with the API server's message and the refusing plugin, beside the
// FailedCreatePod event), and the job runs once the refusal is lifted. What only an edit of the TFJob
// can lift (a template `priority` beside a PriorityClass) is not retried until the spec changes.
import { CoreV1Api, PatchStrategy, SchedulingV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, uniqueName } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { parseMetrics, sumOf } from '../../support/prometheus.ts';
import { createTFJob, customApi, getTFJob, jobEvents, jobPods, patchTFJob, tfjob, waitForCondition } from '../../support/tfjob.ts';

const ENFORCE = 'pod-security.kubernetes.io/enforce';

describe('bad input: a pod create the API server refuses', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

  async function labelNamespace(value: string | null): Promise<void> {
    await core().patchNamespace(
      { name: ns, body: { metadata: { labels: { [ENFORCE]: value } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  beforeAll(async () => {
    ns = await createNamespace('refused');
    pool = await createPool('refuse', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('says in the status and an event why the pods are not created, and runs the job once they are allowed', async () => {
    // The test job's pods set no securityContext, which the restricted profile forbids.
    await labelNamespace('restricted');
    await createTFJob(ns, onPool(tfjob('refused', { Worker: 2 }, { resources: { cpu: '1' } }), pool));

    const refused = await eventually(
      async () => {
        const job = await getTFJob(ns, 'refused');
        return job.status?.scheduling?.reason === 'CreateRefused' ? job : false;
      },
      { timeoutMs: 60_000, what: 'status.scheduling.reason CreateRefused' },
    );
    expect(refused.status?.scheduling?.message).toContain('violates PodSecurity');
    expect(refused.status?.scheduling?.message).toContain('retrying with capped back-off');
    await eventually(
      async () =>
        (await jobEvents(ns, 'refused')).some((e) => e.reason === 'FailedCreatePod' && e.message?.includes('violates PodSecurity')),
      { timeoutMs: 30_000, what: 'a FailedCreatePod event with the API server message' },
    );

    await labelNamespace(null);
    await waitForCondition(ns, 'refused', 'Running', { timeoutMs: 120_000 });
    await eventually(async () => (await getTFJob(ns, 'refused')).status?.scheduling?.reason !== 'CreateRefused', {
      timeoutMs: 30_000,
      what: 'the refusal gone from the status',
    });
  }, 240_000);

  /** Deletes the earlier tests' jobs and waits for their pods to go, so only the next job is reconciled. */
  async function clearJobs(): Promise<void> {
    const group = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace: ns };
    const { items } = (await customApi().listNamespacedCustomObject(group)) as { items: { metadata: { name: string } }[] };
    for (const j of items) await customApi().deleteNamespacedCustomObject({ ...group, name: j.metadata.name });
    await eventually(async () => (await core().listNamespacedPod({ namespace: ns })).items.length === 0, {
      timeoutMs: 60_000,
      what: 'the earlier jobs pods gone',
    });
  }

  it('says a ResourceQuota refusal names the plugin and is retried until the quota allows the pods', async () => {
    await clearJobs();
    const quota = 'refused-quota';
    await core().createNamespacedResourceQuota({
      namespace: ns,
      body: { metadata: { name: quota }, spec: { hard: { 'requests.cpu': '1' } } },
    });
    // The quota controller fills in the quota's status; until then admission refuses every pod for another reason.
    await eventually(async () => (await core().readNamespacedResourceQuota({ name: quota, namespace: ns })).status?.hard !== undefined, {
      timeoutMs: 60_000,
      what: 'the quota status',
    });
    await createTFJob(ns, onPool(tfjob('quota', { Worker: 1 }, { resources: { cpu: '2' } }), pool));
    const refused = await eventually(
      async () => {
        const job = await getTFJob(ns, 'quota');
        const message = job.status?.scheduling?.message;
        return typeof message === 'string' && message.includes('exceeded quota') ? job : false;
      },
      { timeoutMs: 60_000, what: 'status.scheduling naming the quota' },
    );
    expect(refused.status?.scheduling?.reason).toBe('CreateRefused');
    expect(refused.status?.scheduling?.message).toContain(
      '(ResourceQuota admission plugin; spec.tfReplicaSpecs.Worker.template.spec.containers[*].resources',
    );
    expect(refused.status?.scheduling?.message).toContain('retrying with capped back-off');
    await core().deleteNamespacedResourceQuota({ name: quota, namespace: ns });
    await waitForCondition(ns, 'quota', 'Running', { timeoutMs: 120_000 });
  }, 240_000);

  it('names the TFJob field when the Priority admission plugin refuses a template that sets priority next to its class', async () => {
    await clearJobs();
    const scheduling = adminKubeConfig().makeApiClient(SchedulingV1Api);
    const cls = uniqueName('refused-prio');
    await scheduling.createPriorityClass({ body: { metadata: { name: cls }, value: 1000 } });
    try {
      await createTFJob(
        ns,
        onPool(tfjob('prio', { Worker: 1 }, { resources: { cpu: '1' }, template: { priorityClassName: cls, priority: 5 } }), pool),
      );
      const field = 'spec.tfReplicaSpecs.Worker.template.spec.priority: the Priority admission plugin';
      const refused = await eventually(
        async () => {
          const job = await getTFJob(ns, 'prio');
          return job.status?.scheduling?.reason === 'CreateRefused' ? job : false;
        },
        { timeoutMs: 60_000, what: 'status.scheduling.reason CreateRefused' },
      );
      expect(refused.status?.scheduling?.message).toContain('the integer value of priority (5) must not be provided in pod spec');
      expect(refused.status?.scheduling?.message).toContain(field);
      expect(refused.status?.scheduling?.message).toContain("not retried until the TFJob's spec changes");
      await eventually(
        async () =>
          (await jobEvents(ns, 'prio')).some(
            (e) =>
              e.reason === 'FailedCreatePod' &&
              e.message?.includes(field) &&
              e.message.includes("not retried until the TFJob's spec changes"),
          ),
        { timeoutMs: 30_000, what: 'a FailedCreatePod event naming the field' },
      );

      // A change that is no spec change (a label) reconciles the job again without another create.
      const metric = async (name: string, labels: Record<string, string> = {}) =>
        sumOf(parseMetrics(await operator.registry.metrics()), name, labels);
      const refusedPosts = await metric('rest_client_requests_total', { method: 'POST', code: '403' });
      const reconciles = await metric('controller_runtime_reconcile_total');
      expect(refusedPosts).toBeGreaterThan(0);
      await patchTFJob(ns, 'prio', { metadata: { labels: { touched: 'yes' } } });
      await eventually(async () => (await metric('controller_runtime_reconcile_total')) > reconciles, {
        timeoutMs: 30_000,
        what: 'a reconcile after the label change',
      });
      expect(await metric('rest_client_requests_total', { method: 'POST', code: '403' })).toBe(refusedPosts);
      expect(await jobPods(ns, 'prio')).toEqual([]);

      // The spec change (a new generation) is tried at once, and runs.
      await patchTFJob(ns, 'prio', { spec: { tfReplicaSpecs: { Worker: { template: { spec: { priority: null } } } } } });
      await waitForCondition(ns, 'prio', 'Running', { timeoutMs: 120_000 });
      await eventually(async () => (await getTFJob(ns, 'prio')).status?.scheduling?.reason !== 'CreateRefused', {
        timeoutMs: 30_000,
        what: 'the refusal gone from the status',
      });
    } finally {
      await scheduling.deletePriorityClass({ name: cls }).catch(() => undefined);
    }
  }, 120_000);
});
