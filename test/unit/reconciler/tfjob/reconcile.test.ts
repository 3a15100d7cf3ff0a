import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { Pod, Service } from '../../../../src/api/v1/k8s-types.ts';
import type { JobStatus } from '../../../../src/api/v1/schema.ts';
import type { Action, ReconcilePlan, SchedulingInput } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { at, newPod, newTFJob, pods, services } from './builders.ts';

function run(
  job: Record<string, unknown>,
  observedPods: Pod[] = [],
  observedServices: Service[] = [],
  seconds = 0,
  scheduling?: SchedulingInput,
): ReconcilePlan {
  return reconcileTFJob({
    job: toTFJobEntry(job),
    pods: observedPods,
    services: observedServices,
    now: at(seconds),
    ...(scheduling ? { scheduling } : {}),
  });
}

function withStatus(job: Record<string, unknown>, status: JobStatus): Record<string, unknown> {
  return { ...job, status };
}

const created = (r: ReconcilePlan, kind: 'createPod' | 'createService') =>
  r.actions
    .filter((a) => a.kind === kind)
    .map((a) => (a.kind === 'createPod' ? a.pod.metadata?.name : a.kind === 'createService' ? a.service.metadata?.name : ''));
const deletedPods = (r: ReconcilePlan) => r.actions.filter((a): a is Extract<Action, { kind: 'deletePod' }> => a.kind === 'deletePod');
const deletedServices = (r: ReconcilePlan) =>
  r.actions.filter((a): a is Extract<Action, { kind: 'deleteService' }> => a.kind === 'deleteService');
const conditionShape = (r: ReconcilePlan) => (r.status.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]);

describe('Test Normal Path (compat §5.1 item 1)', () => {
  it('Local TFJob is created → 1 pod + 1 service, Created condition, startTime set', () => {
    const r = run(newTFJob(1, 0));
    expect(created(r, 'createPod')).toEqual(['test-tfjob-worker-0']);
    expect(created(r, 'createService')).toEqual(['test-tfjob-worker-0']);
    expect(conditionShape(r)).toEqual([['Created', 'True', 'TFJobCreated', 'TFJob test-tfjob is created.']]);
    expect(r.status.startTime).toBe('2024-09-10T10:00:00Z');
    expect(r.status.replicaStatuses).toEqual({ Worker: {} });
    expect(r.statusChanged).toBe(true);
  });

  it('Distributed TFJob (4 workers, 2 PS) is created → 6 pods + 6 services owned by the job', () => {
    const r = run(newTFJob(4, 2));
    expect(created(r, 'createPod')).toHaveLength(6);
    expect(created(r, 'createService')).toHaveLength(6);
    for (const action of r.actions) {
      if (action.kind === 'createPod')
        expect(action.pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'TFJob', name: 'test-tfjob', controller: true });
    }
  });

  it('... all replicas pending → nothing created', () => {
    const r = run(
      newTFJob(4, 2),
      [...pods('Worker', 4, 'Pending'), ...pods('PS', 2, 'Pending')],
      [...services('Worker', 4), ...services('PS', 2)],
    );
    expect(r.actions).toEqual([]);
  });

  it('... all replicas running → Running, actives counted, startTime set', () => {
    const r = run(
      newTFJob(4, 2),
      [...pods('Worker', 4, 'Running'), ...pods('PS', 2, 'Running')],
      [...services('Worker', 4), ...services('PS', 2)],
    );
    expect(r.actions).toEqual([]);
    expect(r.status.replicaStatuses).toEqual({ Worker: { active: 4 }, PS: { active: 2 } });
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Running',
      status: 'True',
      reason: 'TFJobRunning',
      message: 'TFJob default/test-tfjob is running.',
    });
    expect(r.status.startTime).toBeDefined();
  });

  it('... 2 workers and 1 PS pending → creates 3 pods + 3 services', () => {
    const r = run(
      newTFJob(4, 2),
      [...pods('Worker', 2, 'Pending'), ...pods('PS', 1, 'Pending')],
      [...services('Worker', 2), ...services('PS', 1)],
    );
    expect(created(r, 'createPod').sort()).toEqual(['test-tfjob-ps-1', 'test-tfjob-worker-2', 'test-tfjob-worker-3']);
    expect(created(r, 'createService')).toHaveLength(3);
  });

  it('... 2 workers, 1 PS pending, 1 worker running → creates 2 + 2, Running', () => {
    const observed = [...pods('Worker', 2, 'Pending'), newPod('Worker', 2, { phase: 'Running' }), ...pods('PS', 1, 'Pending')];
    const r = run(newTFJob(4, 2), observed, [...services('Worker', 3), ...services('PS', 1)]);
    expect(created(r, 'createPod')).toHaveLength(2);
    expect(created(r, 'createService')).toHaveLength(2);
    expect(r.status.replicaStatuses?.Worker).toEqual({ active: 1 });
    expect(r.status.conditions?.at(-1)?.type).toBe('Running');
  });

  it('... 2 workers, 1 PS pending, 1 worker succeeded → creates 2 + 2, not Succeeded (worker 0 is pending)', () => {
    const observed = [
      ...pods('Worker', 2, 'Pending'),
      newPod('Worker', 2, { phase: 'Succeeded', exitCode: 0 }),
      ...pods('PS', 1, 'Pending'),
    ];
    const r = run(newTFJob(4, 2), observed, [...services('Worker', 3), ...services('PS', 1)]);
    expect(created(r, 'createPod')).toHaveLength(2);
    expect(r.status.replicaStatuses?.Worker).toEqual({ succeeded: 1 });
    expect(r.status.conditions?.map((c) => c.type)).toEqual(['Created']);
  });

  it('Distributed TFJob (4 workers, 2 PS) is succeeded → Succeeded, counts, no creations', () => {
    const observed = [...pods('Worker', 4, 'Succeeded', 0, { exitCode: 0 }), ...pods('PS', 2, 'Succeeded', 0, { exitCode: 0 })];
    const r = run(newTFJob(4, 2), observed, [...services('Worker', 4), ...services('PS', 2)]);
    expect(created(r, 'createPod')).toEqual([]);
    expect(r.status.replicaStatuses).toEqual({ Worker: { succeeded: 4 }, PS: { succeeded: 2 } });
    expect(r.status.conditions?.at(-1)).toMatchObject({ type: 'Succeeded', reason: 'TFJobSucceeded' });
    expect(r.status.completionTime).toBe('2024-09-10T10:00:00Z');
    expect(r.requeueAfterMs).toBe(0);
  });
});

describe('steady state', () => {
  it('a second pass over the same world writes nothing and does nothing', () => {
    const job = newTFJob(2, 1);
    const world = [...pods('Worker', 2, 'Running'), ...pods('PS', 1, 'Running')];
    const first = run(job, world, [...services('Worker', 2), ...services('PS', 1)], 0);
    const second = run(withStatus(job, first.status), world, [...services('Worker', 2), ...services('PS', 1)], 30);
    expect(second.statusChanged).toBe(false);
    expect(second.actions).toEqual([]);
  });
});

describe('finished jobs (compat §2.10, Appendix A)', () => {
  it('after success, active replicas are folded into succeeded; cleanPodPolicy None keeps pods', () => {
    const job = newTFJob(2, 1, { name: 'dist', namespace: 'ml' });
    const world = [
      newPod('Worker', 0, { job: 'dist', phase: 'Succeeded', exitCode: 0 }),
      newPod('Worker', 1, { job: 'dist', phase: 'Succeeded', exitCode: 0 }),
      newPod('PS', 0, { job: 'dist', phase: 'Running' }),
    ];
    const deciding = run(job, world, [], 300);
    expect(deciding.status.replicaStatuses).toEqual({ Worker: { succeeded: 2 }, PS: { active: 1 } });
    expect(conditionShape(deciding)).toEqual([
      ['Created', 'True', 'TFJobCreated', 'TFJob dist is created.'],
      ['Succeeded', 'True', 'TFJobSucceeded', 'TFJob ml/dist successfully completed.'],
    ]);
    const after = run(withStatus(job, deciding.status), world, [], 301);
    expect(after.outcome).toBe('finished');
    expect(after.status.replicaStatuses).toEqual({ Worker: { succeeded: 2 }, PS: { succeeded: 1 } });
    expect(after.actions).toEqual([]);
  });

  it('cleanPodPolicy Running deletes the still-running PS and its service', () => {
    const job = newTFJob(1, 1, {
      runPolicy: { cleanPodPolicy: 'Running' },
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'TFJobSucceeded' }], completionTime: '2024-09-10T10:00:00Z' },
    });
    const r = run(job, [newPod('Worker', 0, { phase: 'Succeeded' }), newPod('PS', 0, { phase: 'Running' })], services('PS', 1));
    expect(deletedPods(r).map((a) => [a.name, a.reason])).toEqual([['test-tfjob-ps-0', 'cleanup']]);
    expect(deletedServices(r)).toEqual([{ kind: 'deleteService', name: 'test-tfjob-ps-0' }]);
  });

  it('Test TTL Seconds After Finished: requeue until the TTL, then delete the job', () => {
    const status = { conditions: [{ type: 'Failed', status: 'True', reason: 'TFJobFailed' }], completionTime: '2024-09-10T10:00:00Z' };
    const job = newTFJob(1, 0, { runPolicy: { ttlSecondsAfterFinished: 3 }, status });
    expect(run(job, [], [], 1).requeueAfterMs).toBe(2000);
    expect(run(job, [], [], 3).actions).toEqual([{ kind: 'deleteJob' }]);
  });

  it('ours: a finished job without completionTime gets one instead of an endless TTL error', () => {
    const job = newTFJob(1, 0, {
      runPolicy: { ttlSecondsAfterFinished: 60 },
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'TFJobSucceeded' }] },
    });
    const r = run(job, [], [], 10);
    expect(r.status.completionTime).toBe('2024-09-10T10:00:10Z');
    expect(r.requeueAfterMs).toBe(60_000);
  });
});

describe('suspend and resume (compat §5.1 item 2)', () => {
  const chiefWorker = (suspend: boolean, status?: JobStatus) =>
    newTFJob(1, 0, { name: 'test-job', chief: 1, runPolicy: { suspend }, ...(status ? { status } : {}) });

  it('created suspended: [Created, Suspended], no startTime, no pods or services', () => {
    const r = run(chiefWorker(true));
    expect(r.outcome).toBe('suspended');
    expect(r.actions).toEqual([]);
    expect(r.status.startTime).toBeUndefined();
    expect(conditionShape(r)).toEqual([
      ['Created', 'True', 'TFJobCreated', 'TFJob test-job is created.'],
      ['Suspended', 'True', 'TFJobSuspended', 'TFJob test-job is suspended.'],
    ]);
    expect(r.events).toEqual([{ type: 'Normal', reason: 'TFJobSuspended', message: 'TFJob test-job is suspended.' }]);
  });

  it('suspend a running job, then resume it', () => {
    const world = [newPod('Chief', 0, { job: 'test-job', phase: 'Running' }), newPod('Worker', 0, { job: 'test-job', phase: 'Running' })];
    const worldServices = [...services('Chief', 1).map((s) => ({ ...s, metadata: { ...s.metadata, name: 'test-job-chief-0' } }))];
    const running = run(chiefWorker(false), world, [], 1);
    expect(conditionShape(running)).toEqual([
      ['Created', 'True', 'TFJobCreated', 'TFJob test-job is created.'],
      ['Running', 'True', 'TFJobRunning', 'TFJob default/test-job is running.'],
    ]);
    const startTime = running.status.startTime;

    const suspended = run(chiefWorker(true, running.status), world, worldServices, 2);
    expect(deletedPods(suspended).map((a) => [a.name, a.reason])).toEqual([
      ['test-job-chief-0', 'suspend'],
      ['test-job-worker-0', 'suspend'],
    ]);
    expect(suspended.status.replicaStatuses).toEqual({ Chief: {}, Worker: {} });
    expect(suspended.status.startTime).toBe(startTime);
    expect(conditionShape(suspended)).toEqual([
      ['Created', 'True', 'TFJobCreated', 'TFJob test-job is created.'],
      ['Running', 'False', 'TFJobSuspended', 'TFJob test-job is suspended.'],
      ['Suspended', 'True', 'TFJobSuspended', 'TFJob test-job is suspended.'],
    ]);

    const resumed = run(chiefWorker(false, suspended.status), [], [], 60);
    expect(resumed.status.startTime).toBe('2024-09-10T10:01:00Z');
    expect(created(resumed, 'createPod')).toEqual(['test-job-chief-0', 'test-job-worker-0']);
    expect(resumed.events).toContainEqual({ type: 'Normal', reason: 'TFJobResumed', message: 'TFJob test-job is resumed.' });

    const runningAgain = run(chiefWorker(false, resumed.status), world, [], 61);
    expect(conditionShape(runningAgain)).toEqual([
      ['Created', 'True', 'TFJobCreated', 'TFJob test-job is created.'],
      ['Suspended', 'False', 'TFJobResumed', 'TFJob test-job is resumed.'],
      ['Running', 'True', 'TFJobRunning', 'TFJob default/test-job is running.'],
    ]);
  });

  it('suspend ignores the TTL and a finished job is never suspended', () => {
    const finished = newTFJob(1, 0, {
      runPolicy: { suspend: true, ttlSecondsAfterFinished: 0 },
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'TFJobSucceeded' }], completionTime: '2024-09-10T09:00:00Z' },
    });
    const r = run(finished, [], [], 0);
    expect(r.outcome).toBe('finished');
    expect(r.actions).toEqual([]); // suspended: TTL ignored (issue #2239)
  });
});

describe('failures and restarts', () => {
  it('Test Failed (status_test): 3 workers, one Failed pod → Failed', () => {
    const r = run(newTFJob(3, 0), [...pods('Worker', 2, 'Running'), newPod('Worker', 2, { phase: 'Failed', exitCode: 1 })]);
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      reason: 'TFJobFailed',
      message: 'TFJob default/test-tfjob has failed because 1 Worker replica(s) failed.',
    });
    expect(r.status.completionTime).toBeDefined();
  });

  it('Test Exit Code: ExitCode policy, worker exited 130 → pod deleted, Restarting, recreation counted', () => {
    const r = run(newTFJob(1, 0, { restartPolicy: 'ExitCode' }), [newPod('Worker', 0, { phase: 'Failed', exitCode: 130 })]);
    expect(deletedPods(r).map((a) => [a.name, a.reason])).toEqual([['test-tfjob-worker-0', 'restart']]);
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Restarting',
      reason: 'TFJobRestarting',
      message: 'job test-tfjob is restarting because Worker replica(s) failed.',
    });
    expect(r.status.podRecreations).toEqual({ Worker: 1 });
    expect(r.events).toContainEqual({
      type: 'Normal',
      reason: 'ExitedWithCode',
      message: 'Pod: default.test-tfjob-worker-0 exited with code 130',
    });
    expect(r.events).toContainEqual({
      type: 'Warning',
      reason: 'TFJobRestarting',
      message: 'job test-tfjob is restarting because Worker replica(s) failed.',
    });
  });

  it('Test Unretryable Exit Code: exit 1 → Failed with the quoted message', () => {
    const r = run(newTFJob(1, 0, { name: 'test-noretry-exit-code', restartPolicy: 'ExitCode' }), [
      newPod('Worker', 0, { job: 'test-noretry-exit-code', phase: 'Failed', exitCode: 1 }),
    ]);
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      status: 'True',
      reason: 'TFJobFailed',
      message: 'job "test-noretry-exit-code" is failing because "Worker" replica(s) failed.',
    });
    expect(deletedPods(r)).toEqual([]);
  });

  it('OnFailure: a Failed pod (e.g. evicted) is recreated and the job keeps going', () => {
    const r = run(newTFJob(2, 0, { restartPolicy: 'OnFailure' }), [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Failed', exitCode: 137 }),
    ]);
    expect(deletedPods(r).map((a) => a.name)).toEqual(['test-tfjob-worker-1']);
    expect(r.status.conditions?.some((c) => c.type === 'Failed')).toBe(false);
  });

  it('Never: a Running pod being deleted (node drain) fails the job, as tf-operator does', () => {
    const r = run(newTFJob(2, 0), [newPod('Worker', 0, { phase: 'Running' }), newPod('Worker', 1, { phase: 'Running', deleting: true })]);
    expect(r.status.conditions?.at(-1)?.type).toBe('Failed');
  });

  it('ours: a worker our scheduler preempts never fails the job', () => {
    const r = run(newTFJob(3, 1), [
      ...pods('Worker', 2, 'Running'),
      newPod('Worker', 2, { phase: 'Running', deleting: true, removal: 'preemption' }),
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(r.status.conditions?.map((c) => c.type)).toEqual(['Created', 'Running']);
    expect(r.status.replicaStatuses?.Worker).toEqual({ active: 2 });
  });
});

describe('backoffLimit and activeDeadlineSeconds (compat §5.1 items 6, 7)', () => {
  const allRunning = () => [...pods('Worker', 4, 'Running', 0, { restartCount: 1 }), ...pods('PS', 2, 'Running')];
  const allServices = () => [...services('Worker', 4), ...services('PS', 2)];

  it('Test Backoff For On Failure, cleanPodPolicy All → Failed, all pods and services deleted', () => {
    const job = newTFJob(4, 2, { restartPolicy: 'OnFailure', runPolicy: { backoffLimit: 4, cleanPodPolicy: 'All' } });
    const r = run(job, allRunning(), allServices());
    expect(r.outcome).toBe('limit-exceeded');
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      reason: 'TFJobFailed',
      message: 'Job test-tfjob has failed because it has reached the specified backoff limit',
    });
    expect(deletedPods(r)).toHaveLength(6);
    expect(deletedServices(r)).toHaveLength(6);
  });

  it('ours (as v1.9.4): the backoff failure honours cleanPodPolicy None (issue #3419)', () => {
    const job = newTFJob(4, 2, { restartPolicy: 'OnFailure', runPolicy: { backoffLimit: 4 } });
    const r = run(job, allRunning(), allServices());
    expect(r.status.conditions?.at(-1)?.type).toBe('Failed');
    expect(r.actions).toEqual([]);
  });

  it('ours: ExitCode recreations count toward backoffLimit (issue #2045)', () => {
    const job = newTFJob(1, 0, {
      restartPolicy: 'ExitCode',
      runPolicy: { backoffLimit: 2 },
      status: { podRecreations: { Worker: 2 }, startTime: '2024-09-10T10:00:00Z' },
    });
    const r = run(job, [newPod('Worker', 0, { phase: 'Running' })], services('Worker', 1), 5);
    expect(r.status.conditions?.at(-1)?.message).toBe('Job test-tfjob has failed because it has reached the specified backoff limit');
  });

  it('backoffLimit 0 and a new Failed pod take the backoff path whatever the restart policy', () => {
    const job = newTFJob(2, 0, { runPolicy: { backoffLimit: 0 } });
    const r = run(job, [newPod('Worker', 0, { phase: 'Running' }), newPod('Worker', 1, { phase: 'Failed', exitCode: 1 })]);
    expect(r.status.conditions?.at(-1)?.message).toBe('Job test-tfjob has failed because it has reached the specified backoff limit');
  });

  it('Test Active Deadline Seconds: unset → pods remain', () => {
    const r = run(
      newTFJob(4, 2, { runPolicy: { cleanPodPolicy: 'All' }, status: { startTime: '2024-09-10T10:00:00Z' } }),
      allRunning(),
      allServices(),
      2,
    );
    expect(r.actions).toEqual([]);
  });

  it('Test Active Deadline Seconds: 2 s after startTime → Failed, all 6 pods and services deleted', () => {
    const job = newTFJob(4, 2, {
      runPolicy: { cleanPodPolicy: 'All', activeDeadlineSeconds: 2 },
      status: { startTime: '2024-09-10T10:00:00Z' },
    });
    const r = run(job, allRunning(), allServices(), 2);
    expect(r.status.conditions?.at(-1)).toMatchObject({
      type: 'Failed',
      message: 'Job test-tfjob has failed because it was active longer than specified deadline',
    });
    expect(deletedPods(r)).toHaveLength(6);
    expect(deletedServices(r)).toHaveLength(6);
    expect(r.events).toContainEqual({
      type: 'Normal',
      reason: 'TFJobFailed',
      message: 'Job test-tfjob has failed because it was active longer than specified deadline',
    });
  });

  it('ours: a running job with a deadline asks to be requeued at the deadline (issue #3358)', () => {
    const job = newTFJob(1, 0, { runPolicy: { activeDeadlineSeconds: 600 }, status: { startTime: '2024-09-10T10:00:00Z' } });
    expect(run(job, [newPod('Worker', 0, { phase: 'Running' })], services('Worker', 1), 100).requeueAfterMs).toBe(500_000);
  });
});

describe('validation and skipping', () => {
  it('an invalid job (upstream CRD, no webhook) is marked Failed with the field named', () => {
    const job = newTFJob(1, 0);
    (job.spec as { tfReplicaSpecs: Record<string, unknown> }).tfReplicaSpecs.Workers = { replicas: 1 };
    const r = run(job);
    const failed = r.status.conditions?.at(-1);
    expect(failed).toMatchObject({ type: 'Failed', reason: 'TFJobFailedValidation' });
    expect(failed?.message).toContain(
      'TFJob failed validation because [spec.tfReplicaSpecs: Invalid value: keys must be PS, Worker, Chief, Master or Evaluator',
    );
    expect(failed?.message).toContain('spec.tfReplicaSpecs[Workers].template.spec.containers: Required value: must be specified');
    expect(r.actions.filter((a) => a.kind === 'createPod')).toEqual([]);
    expect(r.events[0]).toMatchObject({ type: 'Warning', reason: 'TFJobFailedValidation' });
    expect(r.status.completionTime).toBeDefined();
  });

  it('an object that is not even TFJob-shaped is failed by name', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry({ metadata: { name: 'x' }, spec: { tfReplicaSpecs: 'nope' } }),
      pods: [],
      services: [],
      now: at(0),
    });
    expect(r.status.conditions?.at(-1)?.message).toBe('TFJob failed validation because spec.tfReplicaSpecs: expected record');
  });

  it('skips jobs being deleted and jobs managed by another controller', () => {
    const deleting = newTFJob(1, 0);
    (deleting.metadata as Record<string, unknown>).deletionTimestamp = '2024-09-10T10:00:00Z';
    expect(run(deleting)).toMatchObject({ outcome: 'skipped', statusChanged: false, actions: [] });
    expect(run(newTFJob(1, 0, { runPolicy: { managedBy: 'kueue.x-k8s.io/multikueue' } }))).toMatchObject({
      outcome: 'skipped',
      actions: [],
    });
  });

  it('ignores pods with our labels that another object controls', () => {
    const r = run(newTFJob(1, 0), [newPod('Worker', 0, { phase: 'Running', uid: 'someone-else' })]);
    expect(created(r, 'createPod')).toEqual(['test-tfjob-worker-0']);
  });
});

describe('with our scheduler', () => {
  it('waiting: no pods, no startTime, but its services and replicaStatuses as under tf-operator; the queue status is written', () => {
    const r = run(newTFJob(2, 1), [], [], 0, {
      admitted: false,
      status: { queue: 'Waiting', enqueueTime: '2024-09-10T10:00:00Z', reason: 'Insufficient' },
    });
    expect(r.outcome).toBe('waiting');
    expect(created(r, 'createPod')).toEqual([]);
    expect(created(r, 'createService').sort()).toEqual(['test-tfjob-ps-0', 'test-tfjob-worker-0', 'test-tfjob-worker-1']);
    expect(r.status.replicaStatuses).toEqual({ PS: {}, Worker: {} });
    expect(r.status.startTime).toBeUndefined();
    expect(r.status.scheduling).toEqual({ queue: 'Waiting', enqueueTime: '2024-09-10T10:00:00Z', reason: 'Insufficient' });
    // Services that exist are kept, not created again.
    const again = run(newTFJob(2, 1), [], services('Worker', 2), 0, { admitted: false });
    expect(created(again, 'createService')).toEqual(['test-tfjob-ps-0']);
  });

  it('waiting elastic job: services for its minimum workers only; none ahead of admission for a huge job', () => {
    const elastic = newTFJob(8, 1, { spec: { elasticPolicy: { minReplicas: 2, maxReplicas: 8 } } });
    expect(created(run(elastic, [], [], 0, { admitted: false }), 'createService').sort()).toEqual([
      'test-tfjob-ps-0',
      'test-tfjob-worker-0',
      'test-tfjob-worker-1',
    ]);
    const huge = run(newTFJob(5000, 1), [], [], 0, { admitted: false });
    expect(huge.actions).toEqual([]);
    expect(huge.status.replicaStatuses).toEqual({ PS: {}, Worker: {} });
  });

  it('admitted: pods are placed on the chosen nodes', () => {
    const r = run(newTFJob(1, 1), [], [], 0, {
      admitted: true,
      placements: { 'test-tfjob-worker-0': { nodeName: 'n1', placedBy: 'ours' } },
    });
    const worker = r.actions.find((a) => a.kind === 'createPod' && a.pod.metadata?.name === 'test-tfjob-worker-0');
    expect(worker?.kind === 'createPod' ? worker.pod.spec?.nodeName : undefined).toBe('n1');
  });

  it('elastic: the scheduler’s worker count wins over Worker.replicas, within the bounds', () => {
    const job = newTFJob(2, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    const grown = run(job, [], [], 0, { admitted: true, workers: 3 });
    expect(created(grown, 'createPod').filter((n) => n?.includes('worker'))).toEqual([
      'test-tfjob-worker-0',
      'test-tfjob-worker-1',
      'test-tfjob-worker-2',
    ]);
    const clamped = run(job, [], [], 0, { admitted: true, workers: 10 });
    expect(created(clamped, 'createPod').filter((n) => n?.includes('worker'))).toHaveLength(4);
  });

  it('elastic: the operator-wide worker limit bounds the maximum, and the default bounds make a job elastic', () => {
    const job = newTFJob(2, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 2 ** 31 - 1 } } });
    const bounded = reconcileTFJob({ job: toTFJobEntry(job), pods: [], services: [], now: at(0), options: { workerLimit: 3 } });
    expect(created(bounded, 'createPod').filter((n) => n?.includes('worker'))).toHaveLength(3);
    // --default-min/max-workers reach the reconciler too: the scheduler's worker count is obeyed.
    const fixed = newTFJob(4, 1);
    const defaulted = reconcileTFJob({
      job: toTFJobEntry(fixed),
      pods: [],
      services: [],
      now: at(0),
      scheduling: { admitted: true, workers: 2 },
      options: { defaultElastic: { min: 1, max: 0 } },
    });
    expect(created(defaulted, 'createPod').filter((n) => n?.includes('worker'))).toEqual(['test-tfjob-worker-0', 'test-tfjob-worker-1']);
  });

  it('elastic scale-in deletes the highest workers and asks for the removal mark', () => {
    const job = newTFJob(4, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    const world = [...pods('Worker', 4, 'Running'), newPod('PS', 0, { phase: 'Running' })];
    const r = run(job, world, [...services('Worker', 4), ...services('PS', 1)], 0, { admitted: true, workers: 2 });
    expect(deletedPods(r)).toEqual([
      { kind: 'deletePod', name: 'test-tfjob-worker-3', reason: 'scale-in', markRemoval: 'scale-in' },
      { kind: 'deletePod', name: 'test-tfjob-worker-2', reason: 'scale-in', markRemoval: 'scale-in' },
    ]);
    // Their services go once the removal is in the API (the next reconcile sees the pods marked).
    expect(deletedServices(r)).toEqual([]);
    const marked = [...pods('Worker', 2, 'Running'), ...pods('Worker', 2, 'Running', 2, { removal: 'scale-in' })];
    const next = run(job, [...marked, newPod('PS', 0, { phase: 'Running' })], [...services('Worker', 4), ...services('PS', 1)], 0, {
      admitted: true,
      workers: 2,
    });
    expect(deletedServices(next).map((a) => a.name)).toEqual(['test-tfjob-worker-2', 'test-tfjob-worker-3']);
  });

  it('creates the pods of its placements in the round that finds worker 0 done and marks the job Succeeded', () => {
    // Why the scheduling pass keeps a finished job's placements while its creates are in flight
    // (operator/scheduling/pass/snapshot.ts): the status may reach the cache before these pods.
    const job = newTFJob(1, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const world = [newPod('Worker', 0, { phase: 'Succeeded', exitCode: 0 }), newPod('PS', 0, { phase: 'Running' })];
    const r = run(job, world, [...services('Worker', 1), ...services('PS', 1)], 0, {
      admitted: true,
      workers: 2,
      workerNodes: ['n1'],
      requirePlacement: true,
    });
    expect(created(r, 'createPod')).toEqual(['test-tfjob-worker-1']);
    expect(r.status.conditions?.find((c) => c.type === 'Succeeded')?.status).toBe('True');
  });

  it('elastic without a scheduler decision runs at maxReplicas; a failed worker does not fail it', () => {
    const job = newTFJob(1, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const r = run(job, [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Failed', exitCode: 1 }),
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(created(r, 'createPod')).toEqual(['test-tfjob-worker-2']);
    expect(r.status.conditions?.map((c) => c.type)).toEqual(['Created', 'Running']);
  });
});

describe('clusters with the upstream CRD', () => {
  it('statusExtensions false: our status fields are left out, so steady state writes nothing', () => {
    const job = newTFJob(1, 0, { restartPolicy: 'ExitCode' });
    const world = [newPod('Worker', 0, { phase: 'Failed', exitCode: 137 })];
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: [],
      now: at(0),
      scheduling: { admitted: true, status: { queue: 'Running' } },
      options: { statusExtensions: false },
    });
    expect(r.status.scheduling).toBeUndefined();
    expect(r.status.podRecreations).toBeUndefined();
    const again = reconcileTFJob({
      job: toTFJobEntry(withStatus(job, r.status)),
      pods: [newPod('Worker', 0, { phase: 'Running' })],
      services: services('Worker', 1),
      now: at(1),
      scheduling: { admitted: true, status: { queue: 'Running' } },
      options: { statusExtensions: false },
    });
    const third = reconcileTFJob({
      job: toTFJobEntry(withStatus(job, again.status)),
      pods: [newPod('Worker', 0, { phase: 'Running' })],
      services: services('Worker', 1),
      now: at(2),
      scheduling: { admitted: true, status: { queue: 'Running' } },
      options: { statusExtensions: false },
    });
    expect(third.statusChanged).toBe(false);
  });
});

describe('elastic jobs without a PS', () => {
  const elasticWorkersOnly = (min: number, max: number) =>
    newTFJob(max, 0, { spec: { elasticPolicy: { minReplicas: min, maxReplicas: max } } });

  it('say once, when their first pods are created, that all-reduce workers cannot be resized', () => {
    const first = run(elasticWorkersOnly(1, 3));
    expect(first.events.filter((e) => e.reason === 'ElasticWithoutPS')).toEqual([
      {
        type: 'Warning',
        reason: 'ElasticWithoutPS',
        message:
          "TFJob default/test-tfjob is elastic (1 to 3 workers) and has no PS: workers that train together by all-reduce (MultiWorkerMirroredStrategy) fail when the operator scales them in and wait for every slot when it scales them out; unless its workers are independent, give it minReplicas = maxReplicas or a PS (see the operator's docs/elastic-contract.md)",
      },
    ]);
    // A later pass that creates a missing worker (a scale-out) says nothing again.
    const later = run(elasticWorkersOnly(1, 3), [newPod('Worker', 0, { phase: 'Running' })]);
    expect(later.events.some((e) => e.reason === 'ElasticWithoutPS')).toBe(false);
  });

  it('stay quiet with a PS, at a fixed size, or when not elastic', () => {
    expect(
      run(newTFJob(3, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } })).events.some(
        (e) => e.reason === 'ElasticWithoutPS',
      ),
    ).toBe(false);
    expect(run(elasticWorkersOnly(3, 3)).events.some((e) => e.reason === 'ElasticWithoutPS')).toBe(false);
    expect(run(newTFJob(3, 0)).events.some((e) => e.reason === 'ElasticWithoutPS')).toBe(false);
  });
});

describe('jobs with no replica type that drives the status', () => {
  it('PS/Evaluator only: runs its pods in Created as tf-operator does, and says why with a warning when it creates them', () => {
    const job = newTFJob(0, 2, { evaluator: 1 });
    const first = run(job);
    expect(created(first, 'createPod')).toEqual(['test-tfjob-evaluator-0', 'test-tfjob-ps-0', 'test-tfjob-ps-1']);
    expect(first.events.filter((e) => e.reason === 'NoChiefOrWorker')).toEqual([
      {
        type: 'Warning',
        reason: 'NoChiefOrWorker',
        message:
          'TFJob default/test-tfjob has only Evaluator and PS replicas and no Chief, Master or Worker: as under tf-operator it never becomes Running or Succeeded, and its pods run until the job is deleted, one of them fails, or runPolicy.activeDeadlineSeconds passes',
      },
    ]);
    const running = run(job, [
      newPod('PS', 0, { phase: 'Running' }),
      newPod('PS', 1, { phase: 'Running' }),
      newPod('Evaluator', 0, { phase: 'Running' }),
    ]);
    expect(running.status.conditions?.map((c) => c.type)).toEqual(['Created']);
    expect(running.events.some((e) => e.reason === 'NoChiefOrWorker')).toBe(false);
    // A job with workers never gets the warning.
    expect(run(newTFJob(1, 1)).events.some((e) => e.reason === 'NoChiefOrWorker')).toBe(false);
  });
});

describe('status.progress (ours)', () => {
  const progress = { phase: 'Slowing' as const, metric: '0.81', metricName: 'accuracy', lastUpdate: '2024-09-10T10:00:00Z' };
  const running = (status: JobStatus = {}) => withStatus(newTFJob(1, 0), { conditions: [{ type: 'Running', status: 'True' }], ...status });

  it('is written while the job runs, removed when the signal goes, kept once the job finished', () => {
    const job = toTFJobEntry(running());
    const written = reconcileTFJob({ job, pods: [], services: [], now: at(0), progress });
    expect(written.status.progress).toEqual(progress);
    expect(written.statusChanged).toBe(true);

    const stored = toTFJobEntry(running({ progress }));
    const same = reconcileTFJob({ job: stored, pods: [], services: [], now: at(0), progress });
    expect(same.status.progress).toEqual(progress);
    const gone = reconcileTFJob({ job: stored, pods: [], services: [], now: at(0) });
    expect(gone.status.progress).toBeUndefined();
    expect(gone.statusChanged).toBe(true);

    const finished = toTFJobEntry(
      withStatus(newTFJob(1, 0), { conditions: [{ type: 'Succeeded', status: 'True' }], completionTime: '2024-09-10T10:00:00Z', progress }),
    );
    expect(reconcileTFJob({ job: finished, pods: [], services: [], now: at(0) }).status.progress).toEqual(progress);
  });

  it('is left out on clusters with the upstream CRD (it would be pruned)', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(running()),
      pods: [],
      services: [],
      now: at(0),
      progress,
      options: { statusExtensions: false },
    });
    expect(r.status.progress).toBeUndefined();
  });
});

describe('spec.qoe.onTargetMetric: Stop (ours)', () => {
  const job = (qoe: Record<string, unknown>) => {
    const j = newTFJob(2, 1) as { spec: Record<string, unknown> };
    return withStatus({ ...j, spec: { ...j.spec, qoe } }, { conditions: [{ type: 'Running', status: 'True' }] });
  };
  const running = [...pods('Worker', 2, 'Running'), ...pods('PS', 1, 'Running')];

  it('ends the job Succeeded when its metric reached the target, and cleans up its running pods', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(job({ targetMetric: 0.9, onTargetMetric: 'Stop' })),
      pods: running,
      services: [],
      now: at(60),
      stopAtTarget: 'val_accuracy 0.91 reached the target 0.9',
    });
    const succeeded = r.status.conditions?.find((c) => c.type === 'Succeeded');
    expect(succeeded).toMatchObject({ status: 'True', reason: 'TFJobSucceeded' });
    expect(succeeded?.message).toBe(
      'TFJob default/test-tfjob successfully completed: val_accuracy 0.91 reached the target 0.9 (spec.qoe.onTargetMetric: Stop).',
    );
    expect(r.status.completionTime).toBeDefined();
    // cleanPodPolicy defaults to Running: every running pod goes.
    expect(
      deletedPods(r)
        .map((a) => a.name)
        .sort(),
    ).toEqual(['test-tfjob-ps-0', 'test-tfjob-worker-0', 'test-tfjob-worker-1']);
    expect(r.events.map((e) => e.reason)).toContain('TargetMetricReached');
  });

  it('without the signal the job runs on', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(job({ targetMetric: 0.9, onTargetMetric: 'Stop' })),
      pods: running,
      services: [],
      now: at(60),
    });
    expect(r.status.conditions?.some((c) => c.type === 'Succeeded')).toBe(false);
    expect(deletedPods(r)).toEqual([]);
  });
});
