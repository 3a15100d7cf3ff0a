// runPolicy.backoffLimit (tf-operator's PastBackoffLimit and the "new failure" check of ReconcileJobs).

import type { Pod } from '../../api/v1/k8s-types.ts';
import { kubeletRejection } from './kubelet-rejection.ts';
import { PHASE_FAILED, PHASE_RUNNING, isPodActive, isRemovedByOperator, ofReplicaType, podPhase, totalRestartCount } from './pod-state.ts';
import { recreatesLostPods } from './replica-status.ts';

export interface BackoffReplica {
  readonly restartPolicy: string;
}

/**
 * Restarts so far: container restart counts of the Running pods of the replica types whose restart
 * policy restarts (OnFailure, Always, ExitCode) — tf-operator's count — plus, ours, the failed pods the
 * operator already deleted and recreated for those types (`status.podRecreations`). Recreated pods
 * start with restartCount 0, which is why tf-operator never bounded ExitCode restarts (issue #2045).
 */
export function countRestarts(
  replicas: Readonly<Record<string, BackoffReplica>>,
  pods: readonly Pod[],
  recreations: Readonly<Record<string, number>> = {},
): number {
  let total = 0;
  for (const [type, replica] of Object.entries(replicas)) {
    if (!recreatesLostPods(replica.restartPolicy)) continue;
    for (const pod of ofReplicaType(pods, type)) {
      if (podPhase(pod) === PHASE_RUNNING) total += totalRestartCount(pod);
    }
    total += recreations[type] ?? 0;
  }
  return total;
}

/** `backoffLimit: 0` tolerates no restart at all; otherwise the limit is reached at `restarts >= limit`. */
export function pastBackoffLimit(backoffLimit: number | undefined, restarts: number): boolean {
  if (backoffLimit === undefined) return false;
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/**
 * tf-operator's `exceedsBackoffLimit`: a pod failed since the last status write, not all replicas are
 * active, and `requeues + 1 > backoffLimit`. Its work queue never counts requeues (always 0), so this
 * only fires for `backoffLimit <= 0`; we keep that (quirk §2.15.8), so `backoffLimit: 0` fails the job
 * on the first new Failed pod whatever the restart policy.
 */
export function exceedsBackoffLimit(
  backoffLimit: number | undefined,
  pods: readonly Pod[],
  previouslyFailed: number,
  totalReplicas: number,
): boolean {
  if (backoffLimit === undefined) return false;
  // A pod the kubelet refused is a placement to redo, not a failure (kubelet-rejection.ts).
  const counted = pods.filter((p) => !isRemovedByOperator(p) && kubeletRejection(p) === undefined);
  const failed = counted.filter((p) => podPhase(p) === PHASE_FAILED).length;
  const active = counted.filter(isPodActive).length;
  const requeues = 0;
  return failed > previouslyFailed && active !== totalReplicas && requeues + 1 > backoffLimit;
}
