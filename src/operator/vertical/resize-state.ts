// How an in-place resize the operator asked for is going, from the pod as the kubelet reports it
// (Kubernetes 1.33+): a `PodResizePending` condition (reason Deferred or Infeasible), a
// `PodResizeInProgress` condition, or the container's reported resources showing the new limit.
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { VerticalResizeContainer } from '../../api/v1/schema.ts';
import { cpuMillis } from './inputs.ts';

export type ResizeState = VerticalResizeContainer['state'];

export interface ObservedResize {
  readonly state: ResizeState;
  readonly message?: string;
}

/**
 * The state of the resize to `wantMillis` of `container` in `pod`. Requested: the pod's spec has it
 * and the kubelet has said nothing yet (also a node that never reports resources, such as kwok's).
 */
export function observeResize(pod: Pod | undefined, container: string, wantMillis: number): ObservedResize | undefined {
  const spec = pod?.spec?.containers.find((c) => c.name === container);
  // The pod is gone, or someone else changed its limit since: nothing of ours to report.
  if (pod === undefined || cpuMillis(spec?.resources?.limits?.['cpu']) !== wantMillis) return undefined;
  const conditions = pod.status?.conditions ?? [];
  const pending = conditions.find((c) => c.type === 'PodResizePending' && c.status === 'True');
  if (pending?.reason === 'Infeasible' || pending?.reason === 'Deferred') {
    return { state: pending.reason, ...(pending.message ? { message: pending.message } : {}) };
  }
  const reported = pod.status?.containerStatuses?.find((c) => c.name === container)?.resources?.limits?.['cpu'];
  if (reported !== undefined && cpuMillis(reported) === wantMillis) return { state: 'Applied' };
  const progress = conditions.find((c) => c.type === 'PodResizeInProgress' && c.status === 'True');
  if (progress !== undefined) return { state: 'InProgress', ...(progress.message ? { message: progress.message } : {}) };
  return { state: 'Requested' };
}
