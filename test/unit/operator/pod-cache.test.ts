// The one pod cache's views: which pods are the operator's own, and how the scheduler's view of pods
// using capacity tells the informer's events (a pod that terminates leaves it).
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_NAME, LABEL_OPERATOR_NAME } from '../../../src/api/v1/constants.ts';
import { activeEvent, managedBy, usesCapacity } from '../../../src/operator/pod-cache.ts';

function pod(phase: string | undefined, opts: { namespace?: string; owned?: boolean } = {}): V1Pod {
  return {
    metadata: {
      name: 'p',
      namespace: opts.namespace ?? 'ml',
      ...(opts.owned === false ? {} : { labels: { [LABEL_OPERATOR_NAME]: CONTROLLER_NAME } }),
    },
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

describe('the one pod cache', () => {
  it('manages pods labelled by this operator, in its namespaces only when it has some', () => {
    expect(managedBy([])(pod('Running'))).toBe(true);
    expect(managedBy([])(pod('Running', { owned: false }))).toBe(false);
    expect(managedBy(['ml'])(pod('Running'))).toBe(true);
    // Another operator's TFJob in a namespace this one does not manage: only capacity here.
    expect(managedBy(['other'])(pod('Running'))).toBe(false);
  });

  it('counts a pod as using capacity until it is Succeeded or Failed, also before it has a phase', () => {
    expect([undefined, 'Pending', 'Running', 'Unknown', 'Succeeded', 'Failed'].map((p) => usesCapacity(pod(p)))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('tells a pod that terminates as deleted from the active view, and nothing after', () => {
    const running = pod('Running');
    const done = pod('Succeeded');
    expect(activeEvent('add', running, undefined)).toBe('add');
    expect(activeEvent('update', running, pod('Pending'))).toBe('update');
    expect(activeEvent('update', done, running)).toBe('delete');
    expect(activeEvent('update', done, done)).toBeUndefined();
    expect(activeEvent('delete', done, done)).toBeUndefined();
    expect(activeEvent('add', done, undefined)).toBeUndefined();
    // Deleted while it ran; a delete found by a relist carries the cached pod and no previous one.
    expect(activeEvent('delete', running, running)).toBe('delete');
    expect(activeEvent('delete', running, undefined)).toBe('delete');
  });
});
