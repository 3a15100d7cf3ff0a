// A pod create the API server refuses with 403 (here PodSecurity admission; quota, the Priority
// admission plugin and webhooks refuse the same way). It used to be retried forever with nothing in
// the job's status; now the job says what is refused and why (status.scheduling reason
// CreateRefused with the API server's message, beside the FailedCreatePod event), keeps retrying
// with capped back-off, and runs once the refusal is lifted.
import { CoreV1Api, PatchStrategy, SchedulingV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createNamespace, deleteNamespace, eventually, uniqueName } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, jobEvents, tfjob, waitForCondition } from '../../support/tfjob.ts';

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

  it('names the TFJob field when the Priority admission plugin refuses a template that sets priority next to its class', async () => {
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
      await eventually(
        async () => (await jobEvents(ns, 'prio')).some((e) => e.reason === 'FailedCreatePod' && e.message?.includes(field)),
        { timeoutMs: 30_000, what: 'a FailedCreatePod event naming the field' },
      );
    } finally {
      await scheduling.deletePriorityClass({ name: cls }).catch(() => undefined);
    }
  }, 120_000);
});
