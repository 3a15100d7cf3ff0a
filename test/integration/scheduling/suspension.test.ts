// Attained-service suspension end to end (policy ours): a job that opted in with the suspendable
// annotation and has held more than --demote-after of service is suspended whole when a new job
// cannot be admitted otherwise: its pods are deleted, it goes back to the queue (status, Running
// condition False, a Suspended event naming the newcomer), and it is admitted again once the
// newcomer is done. A job without the annotation is never suspended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, getTFJob, livePods, waitForCondition, waitForJobEvents, type TestTFJob } from '../../support/tfjob.ts';

const one = { cpu: '1', memory: '1Gi' };
const suspendable = (job: TestTFJob, value: string): TestTFJob => ({
  ...job,
  metadata: { ...job.metadata, annotations: { 'tfjob-operator.kubeflow.org/suspendable': value } },
});
/** Its PS is deleted when it succeeds (cleanPodPolicy Running), so the node is whole again. */
const cleanedUp = (job: TestTFJob): TestTFJob => ({ ...job, spec: { ...job.spec, runPolicy: { cleanPodPolicy: 'Running' } } });
const scheduling = async (ns: string, name: string) => (await getTFJob(ns, name)).status?.scheduling;
const runningCondition = async (ns: string, name: string) =>
  (await getTFJob(ns, name)).status?.conditions?.find((c) => c.type === 'Running');

describe('suspension of a demoted job (ours, suspendable annotation)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('suspension');
    // One node of 4 cpu: a fixed-size job of PS + 3 workers (1 cpu each) fills it.
    pool = await createPool('suspension', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      // Demoted after 3 worker-seconds; suspension spares a job only while its PS is younger than the cool-down.
      '--demote-after',
      '3s',
      '--scale-out-cooldown',
      '1s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('a job that never opted in keeps its pods: the newcomer waits', async () => {
    await createTFJob(ns, onPool(cleanedUp(suspendable(elasticJob('keeper', { ps: one, worker: one, min: 3, max: 3 }), 'false')), pool));
    await waitForCondition(ns, 'keeper', 'Running', { timeoutMs: 60_000 });
    await createTFJob(ns, onPool(cleanedUp(elasticJob('patient', { ps: one, worker: one, min: 1, max: 1 })), pool));
    await eventually(async () => (await scheduling(ns, 'patient'))?.reason === 'Waiting', { what: 'patient waits', timeoutMs: 30_000 });
    // Several passes later keeper still runs whole, long past the demotion threshold.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await livePods(ns, 'keeper')).toHaveLength(4);
    expect((await scheduling(ns, 'patient'))?.queue).toBe('Waiting');
    // Both finish, leaving the node empty for the next test.
    await exitPod(ns, 'keeper-worker-0', 0);
    await waitForCondition(ns, 'patient', 'Running', { timeoutMs: 60_000 });
    await exitPod(ns, 'patient-worker-0', 0);
    await waitForCondition(ns, 'patient', 'Succeeded', { timeoutMs: 60_000 });
    await eventually(async () => (await livePods(ns, 'keeper')).length + (await livePods(ns, 'patient')).length === 0, {
      what: 'keeper and patient gone',
      timeoutMs: 30_000,
    });
  });

  it('suspends the demoted job for the newcomer and resumes it when the newcomer is done', async () => {
    await createTFJob(ns, onPool(suspendable(elasticJob('long', { ps: one, worker: one, min: 3, max: 3 }), 'true'), pool));
    await waitForCondition(ns, 'long', 'Running', { timeoutMs: 60_000 });
    // Past --demote-after (3 workers × a few seconds), and its PS older than the cool-down.
    await new Promise((r) => setTimeout(r, 3_000));

    await createTFJob(ns, onPool(cleanedUp(elasticJob('short', { ps: one, worker: one, min: 1, max: 1 })), pool));
    await waitForCondition(ns, 'short', 'Running', { timeoutMs: 60_000 });
    const events = await waitForJobEvents(ns, 'long', (es) => es.some((e) => e.reason === 'Suspended'), 'long suspended');
    expect(events.find((e) => e.reason === 'Suspended')?.message).toContain(`Suspended to admit ${ns}/short`);
    await eventually(async () => (await livePods(ns, 'long')).every((p) => p.metadata?.deletionTimestamp !== undefined), {
      what: 'every pod of long deleted',
      timeoutMs: 30_000,
    });
    expect((await scheduling(ns, 'long'))?.queue).toBe('Waiting');
    expect(await runningCondition(ns, 'long')).toMatchObject({ status: 'False' });

    // The newcomer finishes; the suspended job is admitted again and runs.
    await exitPod(ns, 'short-worker-0', 0);
    await waitForCondition(ns, 'short', 'Succeeded', { timeoutMs: 60_000 });
    await eventually(async () => (await runningCondition(ns, 'long'))?.status === 'True', { timeoutMs: 60_000 }).catch(
      async (e: unknown) => {
        throw new Error(`long not Running again: ${JSON.stringify(await scheduling(ns, 'long'))}`, { cause: e });
      },
    );
    expect((await scheduling(ns, 'long'))?.queue).toBe('Running');
  });
});
