// Reconciler regressions found by the fault scenarios (test/integration/faults), pinned on the pure
// reconciler so they cannot come back unnoticed.
import { describe, expect, it } from 'vitest';
import { reconcileTFJob, type Action } from '../../../src/controllers/tfjob/index.ts';
import { at, newPod, newTFJob, pods, services } from '../controllers/tfjob/builders.ts';

const deletedPods = (actions: readonly Action[]) => actions.flatMap((a) => (a.kind === 'deletePod' ? [a.name] : []));

describe('an interrupted removal (api-errors.test.ts: the mark applied, the delete never sent)', () => {
  it('deletes a worker that carries the removal mark but is not being deleted', () => {
    const job = newTFJob(4, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    // worker-3 was marked for preemption; the delete that should have followed never happened.
    const world = [...pods('Worker', 3, 'Running'), newPod('Worker', 3, { phase: 'Running', removal: 'preemption' })];
    const r = reconcileTFJob({ job, pods: world, services: services('Worker', 4), now: at(0), scheduling: { admitted: true, workers: 3, status: { queue: 'Running' } } });
    expect(deletedPods(r.actions)).toEqual(['test-tfjob-worker-3']);
  });

  it('leaves a marked pod alone once it is being deleted', () => {
    const job = newTFJob(4, 0, { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } } });
    const world = [...pods('Worker', 3, 'Running'), newPod('Worker', 3, { phase: 'Running', removal: 'preemption', deleting: true })];
    const r = reconcileTFJob({ job, pods: world, services: services('Worker', 3), now: at(0), scheduling: { admitted: true, workers: 3, status: { queue: 'Running' } } });
    expect(deletedPods(r.actions)).toEqual([]);
  });
});
