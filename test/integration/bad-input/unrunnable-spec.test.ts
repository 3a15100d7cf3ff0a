// Jobs that the CRD accepts but that no node could ever run, found by trying malformed TFJobs: a
// resource name no node can have ("foo bar"), an amount nothing can have ("1e400"), a worker-bound
// annotation with whitespace (" 2"). They used to be accepted and wait in the queue forever with no
// explanation; now each fails at once with TFJobFailedValidation naming the field, and the job
// behind it in the queue runs. A PS-only job runs as under tf-operator (never Running), with a
// warning that says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_MIN_WORKERS } from '../../../src/api/v1/constants.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, deleteTFJob, getTFJob, tfjob, waitForCondition, waitForEventReasons, type TestTFJob } from '../../support/tfjob.ts';

describe('bad input: specs no node can run', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('unrunnable');
    pool = await createPool('unrun', 1, { cpu: '2', memory: '8Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  async function failsNaming(job: TestTFJob, field: string): Promise<void> {
    await createTFJob(ns, job);
    const failed = await waitForCondition(ns, job.metadata.name, 'Failed', { timeoutMs: 60_000 });
    const condition = failed.status?.conditions?.find((c) => c.type === 'Failed');
    expect(condition?.reason).toBe('TFJobFailedValidation');
    expect(condition?.message).toContain(field);
    await waitForEventReasons(ns, job.metadata.name, ['TFJobFailedValidation']);
  }

  it('fails a job requesting a resource whose name no node can have', async () => {
    const job = onPool(tfjob('foo-bar', { Worker: 1 }, { resources: { cpu: '1', 'foo bar': '1' } }), pool);
    await failsNaming(job, 'spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.requests[foo bar]: Invalid value: "foo bar"');
  });

  it('fails a job requesting an amount no node can have', async () => {
    const job = onPool(tfjob('huge-cpu', { Worker: 1 }, { resources: { cpu: '1e400' } }), pool);
    await failsNaming(job, 'spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.requests[cpu]: Invalid value: "1e400"');
  });

  it('fails a job whose worker bound has whitespace around the number', async () => {
    const job = onPool(tfjob('spaced-bound', { Worker: 2 }, { resources: { cpu: '1' } }), pool);
    job.metadata.annotations = { ...job.metadata.annotations, [ANNOTATION_MIN_WORKERS]: ' 2' };
    await failsNaming(job, `metadata.annotations[${ANNOTATION_MIN_WORKERS}]: Invalid value: " 2"`);
  });

  it('runs a PS-only job as tf-operator does (never Running) and says why in a warning', async () => {
    await createTFJob(ns, onPool(tfjob('ps-only', { PS: 1 }, { resources: { cpu: '500m' } }), pool));
    await waitForEventReasons(ns, 'ps-only', ['NoChiefOrWorker']);
    const job = await getTFJob(ns, 'ps-only');
    expect(job.status?.conditions?.map((c) => c.type)).toEqual(['Created']);
    await deleteTFJob(ns, 'ps-only');
  });

  it('runs the valid job behind them', async () => {
    await createTFJob(ns, onPool(tfjob('fine', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForCondition(ns, 'fine', 'Running', { timeoutMs: 60_000 });
  });
});
