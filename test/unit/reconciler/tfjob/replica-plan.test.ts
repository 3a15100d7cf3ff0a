import { describe, expect, it } from 'vitest';
import { planElasticPods, planFixedPods, planServices } from '../../../../src/reconciler/tfjob/replica-plan.ts';
import { newPod, pods, services } from './builders.ts';

const names = (list: readonly { metadata?: { name?: string } }[]) => list.map((o) => o.metadata?.name);

describe('fixed-size replica plan (compat §2.6)', () => {
  it('Test Scale Down: replicas 2 with workers 0..2 → worker-2 deleted', () => {
    const plan = planFixedPods(pods('Worker', 3, 'Running'), 2);
    expect(plan.create).toEqual([]);
    expect(names(plan.remove)).toEqual(['test-tfjob-worker-2']);
  });

  it('Test Scale Up: replicas 3 with only worker-0 → indices 1 and 2 created', () => {
    const plan = planFixedPods(pods('Worker', 1, 'Running'), 3);
    expect(plan.create).toEqual([1, 2]);
    expect(plan.remove).toEqual([]);
  });

  it('creates every index of a new job and nothing for pending pods', () => {
    expect(planFixedPods([], 4).create).toEqual([0, 1, 2, 3]);
    expect(planFixedPods(pods('Worker', 4, 'Pending'), 4).create).toEqual([]);
  });

  it('pods without a usable index label are ignored', () => {
    const odd = newPod('Worker', 0, { phase: 'Running' });
    odd.metadata!.labels!['training.kubeflow.org/replica-index'] = 'x';
    expect(planFixedPods([odd], 1).create).toEqual([0]);
  });

  it('two pods on one index: warning only, nothing deleted', () => {
    const plan = planFixedPods([newPod('Worker', 2, { phase: 'Running' }), newPod('Worker', 2, { phase: 'Running' })], 1);
    expect(plan.duplicated).toEqual([2]);
    expect(plan.remove).toEqual([]);
  });

  it('a terminating pod still holds its index (no second pod with the same name)', () => {
    expect(planFixedPods([newPod('Worker', 0, { phase: 'Running', deleting: true })], 1).create).toEqual([]);
  });
});

describe('services follow the wanted indices', () => {
  it('creates missing services, deletes those above replicas', () => {
    const plan = planServices(services('Worker', 3, 1), new Set([0, 1]));
    expect(plan.create).toEqual([0]);
    expect(names(plan.remove)).toEqual(['test-tfjob-worker-2', 'test-tfjob-worker-3']);
  });
});

describe('elastic worker plan (ours)', () => {
  it('grows into the lowest free indices', () => {
    const plan = planElasticPods([newPod('Worker', 0, { phase: 'Running' }), newPod('Worker', 2, { phase: 'Running' })], 4);
    expect(plan.create).toEqual([1, 3]);
    expect([...plan.wanted].sort()).toEqual([0, 1, 2, 3]);
  });

  it('shrinks by deleting the highest live indices, never below the target', () => {
    const plan = planElasticPods(pods('Worker', 5, 'Running'), 2);
    expect(names(plan.remove)).toEqual(['test-tfjob-worker-4', 'test-tfjob-worker-3', 'test-tfjob-worker-2']);
    expect([...plan.wanted].sort()).toEqual([0, 1]);
  });

  it('pods removed by the scheduler or terminating are not live but keep their index', () => {
    const observed = [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Running', removal: 'preemption' }),
      newPod('Worker', 2, { phase: 'Running', deleting: true }),
    ];
    const plan = planElasticPods(observed, 2);
    expect(plan.create).toEqual([3]);
    expect(plan.remove).toEqual([]);
  });

  it('never creates a worker at or above its slots: a migrated worker terminating in the last slot is waited for', () => {
    // min = max = 2, worker 1 moved by SpeCon and still terminating: worker-2 would be outside TF_CONFIG.
    const moving = [
      newPod('Worker', 0, { phase: 'Running' }),
      newPod('Worker', 1, { phase: 'Running', removal: 'migration', deleting: true }),
    ];
    expect(planElasticPods(moving, 2, new Set(), 2).create).toEqual([]);
    // Once its pod is gone, the slot is refilled at the same index.
    expect(planElasticPods(moving.slice(0, 1), 2, new Set(), 2).create).toEqual([1]);
    // With a free slot below the maximum, that one is used.
    expect(planElasticPods(moving, 2, new Set(), 3).create).toEqual([2]);
  });

  it('finished workers count toward the target (they are not replaced)', () => {
    const plan = planElasticPods([newPod('Worker', 0, { phase: 'Succeeded' }), newPod('Worker', 1, { phase: 'Running' })], 2);
    expect(plan.create).toEqual([]);
  });
});
