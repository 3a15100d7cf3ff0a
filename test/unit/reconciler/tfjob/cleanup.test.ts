import { describe, expect, it } from 'vitest';
import { selectForCleanup } from '../../../../src/reconciler/tfjob/cleanup.ts';
import { newPod, pods, services } from './builders.ts';

const allServices = [...services('Worker', 4), ...services('PS', 2)];

describe('cleanPodPolicy on a finished job (Test Delete Pods and Services, compat §5.1 item 5)', () => {
  it('running pods, policy All → everything deleted', () => {
    const selection = selectForCleanup('All', true, [...pods('Worker', 4, 'Running'), ...pods('PS', 2, 'Running')], allServices);
    expect(selection.pods).toHaveLength(6);
    expect(selection.services).toHaveLength(6);
  });

  it('running pods, policy Running → everything deleted', () => {
    const selection = selectForCleanup('Running', true, [...pods('Worker', 4, 'Running'), ...pods('PS', 2, 'Running')], allServices);
    expect(selection.pods).toHaveLength(6);
  });

  it('succeeded pods, policy Running → all 6 pods and services remain', () => {
    const selection = selectForCleanup('Running', true, [...pods('Worker', 4, 'Succeeded'), ...pods('PS', 2, 'Succeeded')], allServices);
    expect(selection).toEqual({ pods: [], services: [] });
  });

  it('policy None → nothing deleted', () => {
    const selection = selectForCleanup('None', true, [...pods('Worker', 4, 'Running'), ...pods('PS', 2, 'Running')], allServices);
    expect(selection).toEqual({ pods: [], services: [] });
  });

  it('policy Running deletes Pending pods too and keeps finished ones (legacy test_cleanpod_running)', () => {
    const observed = [
      newPod('Chief', 0, { phase: 'Succeeded' }),
      newPod('Worker', 0, { phase: 'Succeeded' }),
      newPod('PS', 0, { phase: 'Running' }),
      newPod('PS', 1, { phase: 'Pending' }),
    ];
    const selection = selectForCleanup('Running', true, observed, services('PS', 2));
    expect(selection.pods).toEqual(['test-tfjob-ps-0', 'test-tfjob-ps-1']);
    expect(selection.services).toEqual(['test-tfjob-ps-0', 'test-tfjob-ps-1']);
  });

  it('an explicit "" behaves as All', () => {
    expect(selectForCleanup('', true, pods('Worker', 2, 'Succeeded'), []).pods).toHaveLength(2);
  });

  it('services whose pod is gone are left to garbage collection; no pods → nothing', () => {
    expect(selectForCleanup('All', true, [], allServices)).toEqual({ pods: [], services: [] });
    expect(selectForCleanup('All', true, pods('Worker', 1, 'Running'), allServices).services).toEqual(['test-tfjob-worker-0']);
  });

  it('pods already being deleted are not deleted again, their services are', () => {
    const selection = selectForCleanup('All', true, [newPod('Worker', 0, { phase: 'Running', deleting: true })], services('Worker', 1));
    expect(selection).toEqual({ pods: [], services: ['test-tfjob-worker-0'] });
  });
});

describe('not finished (suspend, compat TestDeletePodsAndServices)', () => {
  it('deletes everything whatever the policy', () => {
    for (const policy of ['None', 'Running', 'All']) {
      const selection = selectForCleanup(
        policy,
        false,
        [...pods('Worker', 2, 'Succeeded'), ...pods('PS', 1, 'Running')],
        services('Worker', 2),
      );
      expect(selection.pods).toHaveLength(3);
      expect(selection.services).toHaveLength(2);
    }
  });
});
