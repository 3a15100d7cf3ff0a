import { describe, expect, it } from 'vitest';
import { countPods, podContribution, toReplicaStatus } from '../../../../src/reconciler/tfjob/replica-status.ts';
import { newPod, pods } from './builders.ts';

describe('replicaStatuses counting (compat §1.5)', () => {
  it('Running → active, Succeeded → succeeded, Failed → failed, Pending → nothing', () => {
    const observed = [
      ...pods('Worker', 2, 'Running'),
      ...pods('Worker', 1, 'Succeeded', 2),
      ...pods('Worker', 1, 'Failed', 3),
      ...pods('Worker', 3, 'Pending', 4),
    ];
    expect(countPods(observed, 'Never')).toEqual({ active: 2, succeeded: 1, failed: 1 });
  });

  it('a Running pod with a deletionTimestamp counts as failed under Never (tf-operator)', () => {
    expect(podContribution(newPod('Worker', 0, { phase: 'Running', deleting: true }), 'Never')).toEqual({
      active: 0,
      succeeded: 0,
      failed: 1,
    });
  });

  it('ours: not under restart policies that recreate it (issues #999, #2124)', () => {
    for (const policy of ['OnFailure', 'Always', 'ExitCode']) {
      expect(podContribution(newPod('Worker', 0, { phase: 'Running', deleting: true }), policy)).toEqual({
        active: 0,
        succeeded: 0,
        failed: 0,
      });
    }
  });

  it('ours: pods removed by our scheduler count for nothing, whatever their phase', () => {
    expect(podContribution(newPod('Worker', 0, { phase: 'Running', deleting: true, removal: 'preemption' }), 'Never')).toEqual({
      active: 0,
      succeeded: 0,
      failed: 0,
    });
    expect(podContribution(newPod('Worker', 0, { phase: 'Failed', exitCode: 143, removal: 'scale-in' }), 'Never')).toEqual({
      active: 0,
      succeeded: 0,
      failed: 0,
    });
  });

  it('serialises with zeros omitted (int32 omitempty)', () => {
    expect(toReplicaStatus({ active: 0, succeeded: 0, failed: 0 })).toEqual({});
    expect(toReplicaStatus({ active: 2, succeeded: 0, failed: 1 })).toEqual({ active: 2, failed: 1 });
  });
});
