// A pod the kubelet refused to admit is a placement that did not hold: deleted and placed again,
// never a failure of the job, whatever its restart policy, backoffLimit or replica index.
import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { EVENT_POD_REJECTED, kubeletRejection } from '../../../../src/reconciler/tfjob/kubelet-rejection.ts';
import type { ReconcilePlan } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { givenUpWorkerSlots } from '../../../../src/reconciler/tfjob/given-up-slots.ts';
import { at, newPod, newTFJob, pods, services } from './builders.ts';
import { viewOf } from './job-helpers.ts';

/** A pod as a kubelet leaves it after refusing it: Failed, a reason, no container ever started. */
function rejected(type: string, index: number, reason = 'OutOfcpu'): Pod {
  const pod = newPod(type, index, { phase: 'Pending' });
  return {
    ...pod,
    spec: { ...pod.spec!, nodeName: 'node-7' },
    status: {
      phase: 'Failed',
      reason,
      message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 4000, used: 5000, capacity: 6000",
    },
  };
}

function run(job: Record<string, unknown>, observed: Pod[]): ReconcilePlan {
  return reconcileTFJob({ job: toTFJobEntry(job), pods: observed, services: [...services('Worker', 2), ...services('PS', 1)], now: at(0) });
}

const deletes = (r: ReconcilePlan) => r.actions.filter((a) => a.kind === 'deletePod');

describe('kubeletRejection: which Failed pods are refusals', () => {
  it.each(['OutOfcpu', 'OutOfmemory', 'OutOfpods', 'NodeAffinity', 'UnexpectedAdmissionError', 'OutOfnvidia.com/gpu'])(
    '%s with no container started is one, naming the node',
    (reason) => {
      const r = kubeletRejection(rejected('Worker', 1, reason));
      expect([r?.reason, r?.node]).toEqual([reason, 'node-7']);
      expect(r?.message).toContain('Pod was rejected');
    },
  );

  it('a pod whose container ran (exit code, restarts, running) is not, whatever its reason', () => {
    const ran = {
      ...rejected('Worker', 1),
      status: {
        ...rejected('Worker', 1).status,
        containerStatuses: newPod('Worker', 1, { phase: 'Failed', exitCode: 137 }).status!.containerStatuses!.map((s) => ({
          ...s,
          state: { terminated: { exitCode: 137, startedAt: new Date() } },
        })),
      },
    };
    expect(kubeletRejection(ran)).toBeUndefined();
    const restarted = {
      ...rejected('Worker', 1),
      status: {
        ...rejected('Worker', 1).status,
        containerStatuses: [{ name: 'tensorflow', image: '', imageID: '', ready: false, restartCount: 2 }],
      },
    };
    expect(kubeletRejection(restarted)).toBeUndefined();
  });

  it('no reason, a reason for a pod that ran (Evicted, DeadlineExceeded), a live or marked pod: not one', () => {
    const noReason = { ...rejected('Worker', 1), status: { phase: 'Failed' } };
    expect(kubeletRejection(noReason)).toBeUndefined();
    for (const reason of ['Evicted', 'DeadlineExceeded']) expect(kubeletRejection(rejected('Worker', 1, reason))).toBeUndefined();
    expect(kubeletRejection({ ...rejected('Worker', 1), status: { phase: 'Pending', reason: 'OutOfcpu' } })).toBeUndefined();
    const marked = newPod('Worker', 1, { phase: 'Failed', removal: 'preemption' });
    expect(kubeletRejection({ ...marked, status: { phase: 'Failed', reason: 'OutOfcpu' } })).toBeUndefined();
  });
});

describe('reconcile: a rejected pod is deleted and placed again, never a failure', () => {
  it.each(['Never', 'OnFailure', 'ExitCode', 'Always'])(
    'restartPolicy %s: deleted as rejected, job not Failed, no recreation counted',
    (policy) => {
      const r = run(newTFJob(2, 1, { restartPolicy: policy }), [
        newPod('Worker', 0, { phase: 'Running' }),
        rejected('Worker', 1),
        newPod('PS', 0, { phase: 'Running' }),
      ]);
      expect(deletes(r)).toEqual([
        { kind: 'deletePod', name: 'test-tfjob-worker-1', uid: undefined, reason: 'rejected', rejection: 'OutOfcpu' },
      ]);
      expect(r.status.conditions?.map((c) => c.type)).not.toContain('Failed');
      expect(r.status.conditions?.map((c) => c.type)).not.toContain('Restarting');
      expect(r.status.podRecreations).toBeUndefined();
      expect(r.status.replicaStatuses?.Worker).toEqual({ active: 1 });
      const event = r.events.find((e) => e.reason === EVENT_POD_REJECTED);
      expect(event?.type).toBe('Warning');
      expect(event?.message).toMatch(/^Pod test-tfjob-worker-1 was rejected by the kubelet of node node-7 \(OutOfcpu: Pod was rejected/);
    },
  );

  it('the same pod under Never without a reason still fails the job (the rule is only for refusals)', () => {
    const failed = { ...rejected('Worker', 1), status: { phase: 'Failed' } };
    const r = run(newTFJob(2, 1, { restartPolicy: 'Never' }), [
      newPod('Worker', 0, { phase: 'Running' }),
      failed,
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(r.status.conditions?.at(-1)?.type).toBe('Failed');
  });

  it('worker 0 refused does not fail the job (IsWorker0Failed)', () => {
    const r = run(newTFJob(2, 1, { restartPolicy: 'Never' }), [
      rejected('Worker', 0, 'OutOfmemory'),
      newPod('Worker', 1, { phase: 'Running' }),
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(r.status.conditions?.map((c) => c.type)).not.toContain('Failed');
    expect(deletes(r).map((a) => ('rejection' in a ? a.rejection : undefined))).toEqual(['OutOfmemory']);
  });

  it('backoffLimit 0 is not spent on a refusal', () => {
    const job = newTFJob(2, 1, { restartPolicy: 'OnFailure', runPolicy: { backoffLimit: 0 } });
    const r = run(job, [newPod('Worker', 0, { phase: 'Running' }), rejected('Worker', 1), newPod('PS', 0, { phase: 'Running' })]);
    expect(r.outcome).not.toBe('limit-exceeded');
    expect(r.status.conditions?.map((c) => c.type)).not.toContain('Failed');
    // The control: an ordinary failed pod under the same limit does fail the job.
    const failed = run(job, [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Failed', exitCode: 137 }),
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(failed.status.conditions?.at(-1)?.type).toBe('Failed');
  });

  it('a refused pod already being deleted is not deleted again; once gone its replica is created again', () => {
    const deleting = { ...rejected('Worker', 1), metadata: { ...rejected('Worker', 1).metadata, deletionTimestamp: at(0) } };
    const r = run(newTFJob(2, 1, { restartPolicy: 'Never' }), [
      newPod('Worker', 0, { phase: 'Running' }),
      deleting,
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(deletes(r)).toEqual([]);
    const gone = run(newTFJob(2, 1, { restartPolicy: 'Never' }), [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('PS', 0, { phase: 'Running' }),
    ]);
    expect(gone.actions.flatMap((a) => (a.kind === 'createPod' ? [a.pod.metadata?.name] : []))).toEqual(['test-tfjob-worker-1']);
  });

  it('all replicas Running but one refused: the job is not Succeeded or Failed meanwhile', () => {
    const r = run(newTFJob(2, 1), [...pods('Worker', 1, 'Running'), rejected('Worker', 1), newPod('PS', 0, { phase: 'Running' })]);
    const types = r.status.conditions?.map((c) => c.type) ?? [];
    expect(types).not.toContain('Failed');
    expect(types).not.toContain('Succeeded');
  });

  it('an elastic worker refused under Never keeps its slot (not given up, the maximum stays)', () => {
    const job = newTFJob(3, 1, { restartPolicy: 'Never', spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const world = [newPod('PS', 0, { phase: 'Running' }), ...pods('Worker', 2, 'Running')];
    expect(givenUpWorkerSlots(viewOf(job), [...world, rejected('Worker', 2)])).toEqual([]);
    // The control: the same slot failed by the program is given up.
    expect(givenUpWorkerSlots(viewOf(job), [...world, newPod('Worker', 2, { phase: 'Failed', exitCode: 1 })])).toEqual([2]);
  });
});
