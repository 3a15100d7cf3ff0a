// A failed elastic worker: re-created in its slot under OnFailure/Always/retryable ExitCode, its slot
// given up under Never (pod kept, job's maximum one lower, a WorkerSlotGivenUp event and
// status.givenUpWorkerSlots), chief/PS failures unchanged.
import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { Pod, Service } from '../../../../src/api/v1/k8s-types.ts';
import type { JobStatus } from '../../../../src/api/v1/schema.ts';
import { boundsWithoutGivenUp, givenUpWorkerSlots } from '../../../../src/reconciler/tfjob/given-up-slots.ts';
import type { ReconcilePlan, SchedulingInput } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { at, newPod, newTFJob, services } from './builders.ts';
import { viewOf } from './job-helpers.ts';

const elasticJob = (restartPolicy: string, extra: { chief?: number; status?: JobStatus } = {}) =>
  newTFJob(3, 1, {
    restartPolicy,
    spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
    ...(extra.chief === undefined ? {} : { chief: extra.chief }),
    ...(extra.status === undefined ? {} : { status: extra.status }),
  });

/** PS 0 and workers 0, 1 running; worker 2 failed with `exitCode`. */
function worldWithFailedWorker2(exitCode: number): Pod[] {
  return [
    newPod('PS', 0, { phase: 'Running' }),
    newPod('Worker', 0, { phase: 'Running' }),
    newPod('Worker', 1, { phase: 'Running' }),
    newPod('Worker', 2, { phase: 'Failed', exitCode }),
  ];
}

const allServices = (): Service[] => [...services('Worker', 3), ...services('PS', 1)];

function run(job: Record<string, unknown>, pods: Pod[], scheduling?: SchedulingInput, svc: Service[] = allServices()): ReconcilePlan {
  return reconcileTFJob({ job: toTFJobEntry(job), pods, services: svc, now: at(10), ...(scheduling ? { scheduling } : {}) });
}

const createdPods = (r: ReconcilePlan) => r.actions.flatMap((a) => (a.kind === 'createPod' ? [a.pod] : []));
const deleted = (r: ReconcilePlan) =>
  r.actions.flatMap((a) => (a.kind === 'deletePod' || a.kind === 'deleteService' ? [`${a.kind}:${a.name}`] : []));
const reasons = (r: ReconcilePlan) => r.events.map((e) => e.reason);
const tfConfigOf = (pod: Pod | undefined) => pod?.spec?.containers[0]?.env?.find((e) => e.name === 'TF_CONFIG')?.value;

/** What the scheduler hands a job it wants at 3 workers, with a node for one more. */
const threeWithOneNode: SchedulingInput = { admitted: true, workers: 3, workerNodes: ['n1'], requirePlacement: true };

describe('which slots are given up', () => {
  const view = (policy: string, chief?: number) => viewOf(elasticJob(policy, chief === undefined ? {} : { chief }));

  it('a worker failed under Never, whatever its exit code', () => {
    expect(givenUpWorkerSlots(view('Never'), worldWithFailedWorker2(1))).toEqual([2]);
    expect(givenUpWorkerSlots(view('Never'), worldWithFailedWorker2(137))).toEqual([2]);
  });

  it('none under OnFailure, Always or ExitCode (re-created, or a permanent code fails the job)', () => {
    for (const policy of ['OnFailure', 'Always', 'ExitCode']) {
      expect(givenUpWorkerSlots(view(policy), worldWithFailedWorker2(137))).toEqual([]);
      expect(givenUpWorkerSlots(view(policy), worldWithFailedWorker2(1))).toEqual([]);
    }
  });

  it('worker 0 only when a Chief decides the job (without one its failure fails the job)', () => {
    const failed0 = [newPod('Worker', 0, { phase: 'Failed', exitCode: 1 }), newPod('Worker', 1, { phase: 'Running' })];
    expect(givenUpWorkerSlots(view('Never'), failed0)).toEqual([]);
    expect(givenUpWorkerSlots(view('Never', 1), failed0)).toEqual([0]);
  });

  it('not a pod being deleted, one the operator removed, a running one, nor a fixed-size job', () => {
    const pods = [
      newPod('Worker', 1, { phase: 'Failed', exitCode: 1, deleting: true }),
      newPod('Worker', 2, { phase: 'Failed', exitCode: 143, removal: 'scale-in' }),
      newPod('Worker', 0, { phase: 'Running' }),
    ];
    expect(givenUpWorkerSlots(view('Never'), pods)).toEqual([]);
    expect(givenUpWorkerSlots(viewOf(newTFJob(3, 1)), worldWithFailedWorker2(1))).toEqual([]);
  });

  it('lowers the maximum by the slots given up, and the minimum with it when it would exceed it', () => {
    expect(boundsWithoutGivenUp({ min: 1, max: 3 }, 1)).toEqual({ min: 1, max: 2 });
    expect(boundsWithoutGivenUp({ min: 3, max: 3 }, 1)).toEqual({ min: 2, max: 2 });
    expect(boundsWithoutGivenUp({ min: 1, max: 2 }, 5)).toEqual({ min: 0, max: 0 });
  });
});

describe('Never: the slot is given up', () => {
  it('keeps the failed pod, creates no replacement even with a node offered, and says so once', () => {
    const first = run(elasticJob('Never'), worldWithFailedWorker2(1), threeWithOneNode);
    expect(createdPods(first)).toEqual([]);
    expect(deleted(first)).toEqual([]); // pod kept for its logs, its service kept (the others' TF_CONFIG names it)
    expect(first.status.givenUpWorkerSlots).toEqual([2]);
    const given = first.events.filter((e) => e.reason === 'WorkerSlotGivenUp');
    expect(given).toHaveLength(1);
    expect(given[0]).toMatchObject({ type: 'Warning' });
    expect(given[0]!.message).toContain('Worker 2 of default/test-tfjob failed (exit code 1) under restartPolicy Never');
    expect(given[0]!.message).toContain('at most 2 of 3 workers');
    expect(first.status.conditions?.map((c) => c.type)).toEqual(['Created', 'Running']);

    const again = run(elasticJob('Never', { status: first.status }), worldWithFailedWorker2(1), threeWithOneNode);
    expect(reasons(again)).not.toContain('WorkerSlotGivenUp');
    expect(again.status.givenUpWorkerSlots).toEqual([2]);
  });

  it('a scale-in never takes the given-up pod, and a scale-out fills other slots', () => {
    const job = newTFJob(4, 1, { restartPolicy: 'Never', spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    const world = worldWithFailedWorker2(1);
    const shrink = run(job, world, { admitted: true, workers: 1 }, [...services('Worker', 3), ...services('PS', 1)]);
    expect(deleted(shrink)).toEqual(['deletePod:test-tfjob-worker-1']);
    const grow = run(job, world, { admitted: true, workers: 3, workerNodes: ['n1'], requirePlacement: true });
    expect(createdPods(grow).map((p) => p.metadata?.name)).toEqual(['test-tfjob-worker-3']);
  });

  it('deleting the failed pod gives the slot back: it is created again and the status field goes', () => {
    const first = run(elasticJob('Never'), worldWithFailedWorker2(1), threeWithOneNode);
    const world = worldWithFailedWorker2(1).filter((p) => p.metadata?.name !== 'test-tfjob-worker-2');
    const back = run(elasticJob('Never', { status: first.status }), world, threeWithOneNode);
    expect(createdPods(back).map((p) => p.metadata?.name)).toEqual(['test-tfjob-worker-2']);
    expect(back.status.givenUpWorkerSlots).toBeUndefined();
  });
});

describe('OnFailure, Always, ExitCode 137: re-created in the same slot', () => {
  for (const policy of ['OnFailure', 'Always', 'ExitCode']) {
    it(`${policy}: the failed pod is deleted with a TFJobRestarting event, then created again as worker 2 with the same TF_CONFIG`, () => {
      const first = run(elasticJob(policy), worldWithFailedWorker2(137), threeWithOneNode);
      expect(deleted(first)).toEqual(['deletePod:test-tfjob-worker-2']);
      expect(reasons(first)).toContain('TFJobRestarting');
      expect(reasons(first)).not.toContain('WorkerSlotGivenUp');
      expect(first.status.givenUpWorkerSlots).toBeUndefined();

      const world = worldWithFailedWorker2(137).filter((p) => p.metadata?.name !== 'test-tfjob-worker-2');
      const second = run(elasticJob(policy, { status: first.status }), world, threeWithOneNode);
      const recreated = createdPods(second);
      expect(recreated.map((p) => p.metadata?.name)).toEqual(['test-tfjob-worker-2']);
      // The TF_CONFIG a fresh job's worker 2 gets: same slot list, same task.
      const fresh = createdPods(run(elasticJob(policy), [], { admitted: true, workers: 3 }, [])).find(
        (p) => p.metadata?.name === 'test-tfjob-worker-2',
      );
      expect(tfConfigOf(recreated[0])).toBeDefined();
      expect(tfConfigOf(recreated[0])).toBe(tfConfigOf(fresh));
    });
  }

  it('ExitCode with a permanent code fails the job (unchanged: tf-operator semantics), no slot given up', () => {
    const r = run(elasticJob('ExitCode'), worldWithFailedWorker2(1), threeWithOneNode);
    expect(r.status.conditions?.find((c) => c.type === 'Failed')?.status).toBe('True');
    expect(r.status.givenUpWorkerSlots).toBeUndefined();
  });
});
