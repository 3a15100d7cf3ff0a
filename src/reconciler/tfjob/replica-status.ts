// `status.replicaStatuses`: recomputed from scratch every reconcile from the pods that exist now.

import { RESTART_POLICY_ALWAYS, RESTART_POLICY_EXIT_CODE, RESTART_POLICY_ON_FAILURE } from '../../api/v1/policies.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ReplicaStatus } from '../../api/v1/schema.ts';
import { PHASE_FAILED, PHASE_RUNNING, PHASE_SUCCEEDED, isRemovedByOperator, isTerminating, podPhase } from './pod-state.ts';

export interface ReplicaCounts {
  readonly active: number;
  readonly succeeded: number;
  readonly failed: number;
}

export const ZERO_COUNTS: ReplicaCounts = { active: 0, succeeded: 0, failed: 0 };

/** Restart policies under which a replica that disappears is simply created again. */
export function recreatesLostPods(restartPolicy: string): boolean {
  return (
    restartPolicy === RESTART_POLICY_ON_FAILURE || restartPolicy === RESTART_POLICY_ALWAYS || restartPolicy === RESTART_POLICY_EXIT_CODE
  );
}

/**
 * One pod's contribution (tf-operator's `updateJobReplicaStatuses`): Running → active, Succeeded →
 * succeeded, Failed → failed, Pending → nothing. A Running pod that is being deleted counts as failed
 * (a pod on a lost node may never reach Failed), except — our changes — when the operator removed it
 * on purpose (scale-in/preemption), or when the replica's restart policy recreates lost pods anyway
 * (OnFailure, Always, ExitCode; issues #999 and #2124): then it counts as nothing.
 */
export function podContribution(pod: Pod, restartPolicy: string): ReplicaCounts {
  if (isRemovedByOperator(pod)) return ZERO_COUNTS;
  switch (podPhase(pod)) {
    case PHASE_RUNNING:
      if (!isTerminating(pod)) return { active: 1, succeeded: 0, failed: 0 };
      return recreatesLostPods(restartPolicy) ? ZERO_COUNTS : { active: 0, succeeded: 0, failed: 1 };
    case PHASE_SUCCEEDED:
      return { active: 0, succeeded: 1, failed: 0 };
    case PHASE_FAILED:
      return { active: 0, succeeded: 0, failed: 1 };
    default:
      return ZERO_COUNTS;
  }
}

export function addCounts(a: ReplicaCounts, b: ReplicaCounts): ReplicaCounts {
  return { active: a.active + b.active, succeeded: a.succeeded + b.succeeded, failed: a.failed + b.failed };
}

export function countPods(pods: readonly Pod[], restartPolicy: string): ReplicaCounts {
  return pods.reduce((sum, pod) => addCounts(sum, podContribution(pod, restartPolicy)), ZERO_COUNTS);
}

/** The API shape: int32 fields with `omitempty`, so zeros are left out (nothing counted → `{}`). */
export function toReplicaStatus(counts: ReplicaCounts): ReplicaStatus {
  return {
    ...(counts.active ? { active: counts.active } : {}),
    ...(counts.succeeded ? { succeeded: counts.succeeded } : {}),
    ...(counts.failed ? { failed: counts.failed } : {}),
  };
}

export function fromReplicaStatus(status: ReplicaStatus | undefined): ReplicaCounts {
  return { active: status?.active ?? 0, succeeded: status?.succeeded ?? 0, failed: status?.failed ?? 0 };
}
