// Reading the observed state of a replica pod.

import { ANNOTATION_REMOVAL, DEFAULT_CONTAINER_NAME, LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';

export const PHASE_PENDING = 'Pending';
export const PHASE_RUNNING = 'Running';
export const PHASE_SUCCEEDED = 'Succeeded';
export const PHASE_FAILED = 'Failed';

type Labelled = Pod | Service;

/** Replica index from the label; undefined when missing or not a non-negative integer (such pods are ignored). */
export function replicaIndex(object: Labelled): number | undefined {
  const raw = object.metadata?.labels?.[LABEL_REPLICA_INDEX];
  if (raw === undefined || !/^[0-9]+$/.test(raw)) return undefined;
  return Number(raw);
}

/** Objects whose replica-type label is this type (the label holds the lowercase type). */
export function ofReplicaType<T extends Labelled>(objects: readonly T[], replicaType: string): T[] {
  const lower = replicaType.toLowerCase();
  return objects.filter((o) => o.metadata?.labels?.[LABEL_REPLICA_TYPE] === lower);
}

export function podName(pod: Pod): string {
  return pod.metadata?.name ?? '';
}

export function podPhase(pod: Pod): string | undefined {
  return pod.status?.phase;
}

export function isTerminating(object: Labelled): boolean {
  // `!= null`: objects decoded from JSON may carry an explicit null.
  return object.metadata?.deletionTimestamp != null;
}

/** Removed on purpose by the operator's scheduler (scale-in or preemption); never a replica failure. */
export function isRemovedByOperator(pod: Pod): boolean {
  return pod.metadata?.annotations?.[ANNOTATION_REMOVAL] !== undefined;
}

/** Kubernetes' `IsPodActive`: not finished and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = podPhase(pod);
  return phase !== PHASE_SUCCEEDED && phase !== PHASE_FAILED && !isTerminating(pod);
}

/**
 * Exit code of the terminated `tensorflow` container, or `fallback` when it has none (tf-operator uses
 * 0xbeef when deciding restarts and 0 when deciding whether worker 0 completed).
 */
export function tensorflowExitCode(pod: Pod, fallback: number): number {
  let code = fallback;
  for (const status of pod.status?.containerStatuses ?? []) {
    const terminated = status.state?.terminated;
    if (status.name === DEFAULT_CONTAINER_NAME && terminated) code = terminated.exitCode;
  }
  return code;
}

export function hasTerminatedTensorflow(pod: Pod): boolean {
  return (pod.status?.containerStatuses ?? []).some((s) => s.name === DEFAULT_CONTAINER_NAME && s.state?.terminated);
}

/** Sum of restart counts of all containers and init containers (backoffLimit). */
export function totalRestartCount(pod: Pod): number {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return statuses.reduce((sum, s) => sum + s.restartCount, 0);
}
