// Jobs the CRD accepts but whose pods or services the API server rejects as Invalid (found by the
// hostile corpus): a pod template valid in the TFJob schema but not as a pod (requests above limits,
// a non-container resource), or a job name of 63 characters whose replica services would be longer
// than a service name may be. No retry can fix them: the job fails with a reason naming the field,
// and the capacity the scheduler gave it goes to the next job instead of being held forever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, jobPods, tfjob, waitForCondition, waitForEventReasons, type TestTFJob } from '../../support/tfjob.ts';

describe('bad input: replicas the API server rejects', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('bad-replicas');
    pool = await createPool('badrep', 1, { cpu: '2', memory: '8Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  async function failsNaming(job: TestTFJob, field: RegExp): Promise<void> {
    await createTFJob(ns, job);
    const failed = await waitForCondition(ns, job.metadata.name, 'Failed', { timeoutMs: 60_000 });
    const condition = failed.status?.conditions?.find((c) => c.type === 'Failed');
    expect(condition?.reason).toBe('TFJobFailedValidation');
    expect(condition?.message).toMatch(field);
    await waitForEventReasons(ns, job.metadata.name, ['TFJobFailedValidation']);
  }

  it('fails a job whose pod template is not a valid pod', async () => {
    const job = onPool(
      tfjob('bad-limits', { Worker: 2 }, { resources: { cpu: '1', memory: '1Gi' }, runPolicy: { cleanPodPolicy: 'All' } }),
      pool,
    );
    const specs = job.spec.tfReplicaSpecs as Record<
      string,
      { template: { spec: { containers: { resources: Record<string, unknown> }[] } } }
    >;
    specs.Worker!.template.spec.containers[0]!.resources.limits = { memory: '100k' };
    await failsNaming(job, /spec\.containers\[0\]\.resources\.requests/);
  });

  it('fails a job whose name leaves no room for its service names', async () => {
    const name = 'long-'.padEnd(63, 'x');
    await failsNaming(
      onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '1', memory: '1Gi' }, runPolicy: { cleanPodPolicy: 'All' } }), pool),
      /must be no more than 63 characters/,
    );
    // Nothing of it is left running.
    await eventually(
      async () => (await jobPods(ns, name)).every((p) => p.metadata?.deletionTimestamp !== undefined || p.status?.phase !== 'Running'),
      { what: `${name} cleaned up`, timeoutMs: 60_000 },
    );
  });

  it('gives the capacity to the next job (the pool fits one job at a time)', async () => {
    await createTFJob(ns, onPool(tfjob('next', { Worker: 2 }, { resources: { cpu: '1', memory: '1Gi' } }), pool));
    await eventually(async () => (await jobPods(ns, 'next')).filter((p) => p.status?.phase === 'Running').length === 2, {
      what: 'next running',
      timeoutMs: 60_000,
    });
    await exitPod(ns, 'next-worker-0', 0);
    await waitForCondition(ns, 'next', 'Succeeded', { timeoutMs: 60_000 });
  });
});
