// Reconciler regressions found by the fault scenarios (test/integration/faults), pinned on the pure
// reconciler so they cannot come back unnoticed.
import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../src/api/v1/parse.ts';
import { applyDefaults } from '../../../src/api/v1/defaults.ts';
import { buildJobView, reconcileTFJob, sparseTfConfig, type Action } from '../../../src/reconciler/tfjob/index.ts';
import { asTFJob, at, newPod, newService, newTFJob, pods, services } from '../reconciler/tfjob/builders.ts';

const deletedPods = (actions: readonly Action[]) => actions.flatMap((a) => (a.kind === 'deletePod' ? [a.name] : []));
const deletedServices = (actions: readonly Action[]) => actions.flatMap((a) => (a.kind === 'deleteService' ? [a.name] : []));

describe('an interrupted removal (api-errors.test.ts: the mark applied, the delete never sent)', () => {
  it('deletes a worker that carries the removal mark but is not being deleted', () => {
    const job = newTFJob(4, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    // worker-3 was marked for preemption; the delete that should have followed never happened.
    const world = [...pods('Worker', 3, 'Running'), newPod('Worker', 3, { phase: 'Running', removal: 'preemption' })];
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: services('Worker', 4),
      now: at(0),
      scheduling: { admitted: true, workers: 3, status: { queue: 'Running' } },
    });
    expect(deletedPods(r.actions)).toEqual(['test-tfjob-worker-3']);
    // The user is told why a worker vanished (e.g. a migration begun by an operator since killed).
    expect(r.events.filter((e) => e.reason === 'RemovalCompleted').map((e) => e.message)).toEqual([
      'Deleting pod test-tfjob-worker-3: marked for removal (preemption) and not deleted yet (the delete failed, was cut short by a restart, or is still on its way)',
    ]);
  });

  it('leaves a marked pod alone once it is being deleted', () => {
    const job = newTFJob(4, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    const world = [...pods('Worker', 3, 'Running'), newPod('Worker', 3, { phase: 'Running', removal: 'preemption', deleting: true })];
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: services('Worker', 3),
      now: at(0),
      scheduling: { admitted: true, workers: 3, status: { queue: 'Running' } },
    });
    expect(deletedPods(r.actions)).toEqual([]);
  });
});

describe('a replica waiting for a node keeps its service (conflicting-writers.test.ts: pods deleted by hand)', () => {
  it('fixed replicas: the service of a pod deleted by hand stays while the replacement waits for placement', () => {
    const job = newTFJob(2, 1, { restartPolicy: 'OnFailure' });
    // worker-1 was deleted by hand; the scheduler has not placed its replacement yet.
    const world = [newPod('Worker', 0, { phase: 'Running' }), newPod('PS', 0, { phase: 'Running' })];
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: [...services('Worker', 2), newService('PS', 0)],
      now: at(0),
      scheduling: { admitted: true, placements: {}, requirePlacement: true, status: { queue: 'Running' } },
    });
    expect(r.actions.filter((a) => a.kind === 'createPod')).toEqual([]);
    expect(deletedServices(r.actions)).toEqual([]);
  });

  it('elastic workers: the same while the replacement worker waits for a node', () => {
    const job = newTFJob(3, 1, { restartPolicy: 'OnFailure', spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const world = [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 2, { phase: 'Running' }),
      newPod('PS', 0, { phase: 'Running' }),
    ];
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: [...services('Worker', 3), newService('PS', 0)],
      now: at(0),
      scheduling: { admitted: true, workers: 3, placements: {}, workerNodes: [], requirePlacement: true, status: { queue: 'Running' } },
    });
    expect(deletedServices(r.actions)).toEqual([]);
  });

  it('a scale-in still deletes the services of the workers it removes, once their removal is in the API', () => {
    const job = newTFJob(3, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const scheduling = {
      admitted: true,
      workers: 1,
      placements: {},
      workerNodes: [],
      requirePlacement: true,
      status: { queue: 'Running' as const },
    };
    const world = [newPod('Worker', 0, { phase: 'Running' }), ...pods('Worker', 2, 'Running', 1, { removal: 'scale-in' })];
    const r = reconcileTFJob({ job: toTFJobEntry(job), pods: world, services: services('Worker', 3), now: at(0), scheduling });
    expect(deletedServices(r.actions).sort()).toEqual(['test-tfjob-worker-1', 'test-tfjob-worker-2']);
  });
});

describe('a scaled-in worker keeps its service until its removal is in the API (a fault run: job-1-worker-3 lost its service)', () => {
  // The reconciler used to send a scaled-in worker's service delete together with the pod's removal
  // mark. Where the mark failed (an API error) or never went out (the operator SIGKILLed between the
  // two writes), the worker stayed a live replica without its service; if the job then wanted it
  // again (a scale-out), the live worker-3 had lost its DNS name for no reason the job had.
  const job = newTFJob(4, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
  const svcs = services('Worker', 4).map((s, i) => ({ ...s, metadata: { ...s.metadata, uid: `uid-svc-${i}` } }));
  const reconcile = (world: ReturnType<typeof pods>, workers: number) =>
    reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: svcs,
      now: at(0),
      scheduling: { admitted: true, workers, placements: {}, workerNodes: [], requirePlacement: true, status: { queue: 'Running' } },
    });

  it('the round that scales a worker in deletes only the pod; its service waits for the mark', () => {
    const scaleIn = reconcile(pods('Worker', 4, 'Running'), 3);
    expect(scaleIn.actions.filter((a) => a.kind === 'deletePod').map((a) => a.name)).toEqual(['test-tfjob-worker-3']);
    expect(deletedServices(scaleIn.actions)).toEqual([]);
    // The mark failed and the job wants four workers again: worker-3 and its service both stay.
    expect(deletedServices(reconcile(pods('Worker', 4, 'Running'), 4).actions)).toEqual([]);
    // The mark is in the API: the next round deletes the service, naming the one it saw.
    const marked = [...pods('Worker', 3, 'Running'), newPod('Worker', 3, { phase: 'Running', removal: 'scale-in' })];
    const next = reconcile(marked, 3).actions.filter((a) => a.kind === 'deleteService');
    expect(next).toEqual([{ kind: 'deleteService', name: 'test-tfjob-worker-3', uid: 'uid-svc-3' }]);
  });
});

describe('an elastic job with an absurd Worker.replicas (bad-input corpus: the operator ran out of memory)', () => {
  it("builds a worker's sparse TF_CONFIG without reading Worker.replicas (it lists only itself and the PS)", () => {
    const job = newTFJob(2_147_483_647, 2, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 2_147_483_647 } } });
    const view = buildJobView(asTFJob(job), applyDefaults(asTFJob(job)), {});
    const worker = view.layout.replicaSpecs.Worker!;
    // Any read of Worker.replicas would build an address per replica: 2^31 strings.
    const guarded = {
      ...view.layout,
      replicaSpecs: {
        ...view.layout.replicaSpecs,
        Worker: {
          ...worker,
          get replicas(): number {
            throw new Error('Worker.replicas read');
          },
        },
      },
    };
    expect(JSON.parse(sparseTfConfig(guarded, 'Worker', 5))).toEqual({
      cluster: {
        worker: { 5: 'test-tfjob-worker-5.default.svc:2222' },
        ps: ['test-tfjob-ps-0.default.svc:2222', 'test-tfjob-ps-1.default.svc:2222'],
      },
      task: { type: 'worker', index: 5 },
    });
  });

  it('reconciles such a job admitted with a few workers, creating just those', () => {
    const job = newTFJob(2_147_483_647, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 2_147_483_647 } } });
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: [],
      services: [],
      now: at(0),
      scheduling: { admitted: true, workers: 2, status: { queue: 'Running' } },
    });
    expect(r.actions.flatMap((a) => (a.kind === 'createPod' ? [a.pod.metadata?.name] : []))).toEqual([
      'test-tfjob-ps-0',
      'test-tfjob-worker-0',
      'test-tfjob-worker-1',
    ]);
  });
});

describe('a delete names the pod it was decided about (leader-failover.test.ts: a replacement deleted once)', () => {
  const withUid = <T extends { metadata?: { uid?: string } }>(pod: T, uid: string): T => ({ ...pod, metadata: { ...pod.metadata, uid } });
  const deleteUids = (actions: readonly Action[]) => actions.flatMap((a) => (a.kind === 'deletePod' ? [[a.name, a.uid]] : []));

  it('scale-in, restart and cleanup deletes carry the UID of the pod the reconciler saw', () => {
    const elastic = newTFJob(3, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
    const world = pods('Worker', 3, 'Running').map((p, i) => withUid(p, `uid-w${i}`));
    const scaleIn = reconcileTFJob({
      job: toTFJobEntry(elastic),
      pods: world,
      services: services('Worker', 3),
      now: at(0),
      scheduling: { admitted: true, workers: 1, status: { queue: 'Running' } },
    });
    expect(deleteUids(scaleIn.actions).sort()).toEqual([
      ['test-tfjob-worker-1', 'uid-w1'],
      ['test-tfjob-worker-2', 'uid-w2'],
    ]);

    const restarting = newTFJob(1, 0, { restartPolicy: 'OnFailure' });
    const failed = withUid(newPod('Worker', 0, { phase: 'Failed', exitCode: 1 }), 'uid-failed');
    const restart = reconcileTFJob({ job: toTFJobEntry(restarting), pods: [failed], services: services('Worker', 1), now: at(0) });
    expect(deleteUids(restart.actions)).toEqual([['test-tfjob-worker-0', 'uid-failed']]);

    const suspended = newTFJob(2, 0, { spec: { runPolicy: { suspend: true } } });
    const suspend = reconcileTFJob({
      job: toTFJobEntry(suspended),
      pods: pods('Worker', 2, 'Running').map((p, i) => withUid(p, `uid-s${i}`)),
      services: services('Worker', 2),
      now: at(0),
    });
    expect(deleteUids(suspend.actions).sort()).toEqual([
      ['test-tfjob-worker-0', 'uid-s0'],
      ['test-tfjob-worker-1', 'uid-s1'],
    ]);
  });
});

describe('a free worker slot below a live worker keeps its service (operator-kill.test.ts, seed 8001: job-17-worker-0)', () => {
  // The operator sent an elastic job's pod creates (workers 0..2) and was SIGKILLed before worker-0's
  // reached the API; its successor restored the job's target as the workers it found (1 and 2) and
  // deleted the service of worker 0, the slot the next create fills first (and the worker whose
  // completion decides the job's success). The job's TF_CONFIG still names that slot.
  const job = newTFJob(4, 1, { restartPolicy: 'OnFailure', spec: { elasticPolicy: { minReplicas: 2, maxReplicas: 4 } } });
  const world = [...pods('Worker', 2, 'Running', 1), newPod('PS', 0, { phase: 'Running' })];
  const scheduling = { admitted: true, placements: {}, workerNodes: [], requirePlacement: true, status: { queue: 'Running' as const } };

  it('keeps worker-0 (and any other free slot below the highest live worker) while the job runs at its target', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: [...services('Worker', 3), newService('PS', 0)],
      now: at(0),
      scheduling: { ...scheduling, workers: 2 },
    });
    expect(r.actions.filter((a) => a.kind === 'createPod' || a.kind === 'deletePod')).toEqual([]);
    expect(deletedServices(r.actions)).toEqual([]);
  });

  it('still deletes the services of slots above the highest live worker', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: world,
      services: [...services('Worker', 4), newService('PS', 0)],
      now: at(0),
      scheduling: { ...scheduling, workers: 2 },
    });
    expect(deletedServices(r.actions)).toEqual(['test-tfjob-worker-3']);
  });
});

describe('an interrupted removal of a job that no longer runs (operator-kill.test.ts, seed 8001: job-3 stuck-removal)', () => {
  // A pod marked for removal whose delete never went out (the operator SIGKILLed between the mark and
  // the delete) was completed only by the pass of a running job. A job the scheduler had sent back to
  // the queue, or one that finished with cleanPodPolicy None, kept such a pod forever: running on a
  // node whose room the scheduler counts as free, since the mark says it is no longer a replica.
  const job = newTFJob(3, 1, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } } });
  const marked = pods('Worker', 2, 'Running', 1, { removal: 'preemption' });

  it('a waiting job: its marked pods are deleted', () => {
    const r = reconcileTFJob({
      job: toTFJobEntry(job),
      pods: [...marked, newPod('Worker', 0, { phase: 'Running', removal: 'preemption', deleting: true })],
      services: [...services('Worker', 3), newService('PS', 0)],
      now: at(0),
      scheduling: { admitted: false, status: { queue: 'Waiting' } },
    });
    expect(r.outcome).toBe('waiting');
    expect(deletedPods(r.actions)).toEqual(['test-tfjob-worker-1', 'test-tfjob-worker-2']);
    expect(deletedServices(r.actions)).toEqual([]);
    expect(r.events.filter((e) => e.reason === 'RemovalCompleted')).toHaveLength(2);
  });

  it('a job finished with cleanPodPolicy None: its marked pods are deleted, the others kept', () => {
    const finished = newTFJob(3, 1, {
      runPolicy: { cleanPodPolicy: 'None' },
      spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } },
      status: { conditions: [{ type: 'Succeeded', status: 'True', reason: 'TFJobSucceeded', message: '' }] },
    });
    const r = reconcileTFJob({
      job: toTFJobEntry(finished),
      pods: [newPod('Worker', 0, { phase: 'Succeeded' }), newPod('PS', 0, { phase: 'Running' }), ...marked],
      services: [...services('Worker', 3), newService('PS', 0)],
      now: at(0),
    });
    expect(deletedPods(r.actions)).toEqual(['test-tfjob-worker-1', 'test-tfjob-worker-2']);
    expect(r.events.filter((e) => e.reason === 'RemovalCompleted')).toHaveLength(2);
  });
});
