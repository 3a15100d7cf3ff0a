// A pod the kubelet refused to admit (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity,
// UnexpectedAdmissionError, ...): it ends Failed with `status.reason` set before any container
// started. That is a placement that did not hold, not a failure of the program: the pod is removed
// and its slot placed again, without the job's restart policy, backoff budget or failed count.

import type { Pod } from '../../api/v1/k8s-types.ts';
import { warning, type JobEvent } from './events.ts';
import type { Action } from './plan-types.ts';
import { PHASE_FAILED, isRemovedByOperator, podName, podPhase } from './pod-state.ts';

/** Why and where the kubelet refused the pod. */
export interface KubeletRejection {
  readonly reason: string;
  readonly message: string;
  readonly node: string;
}

/** Reasons a kubelet gives a pod that ran (or was admitted and then stopped), never a refusal. */
const NOT_ADMISSION = new Set(['DeadlineExceeded', 'Evicted', 'Preempting', 'Terminated', 'Shutdown']);

/** Whether any container (or init container) of the pod ever started. */
function anyContainerStarted(pod: Pod): boolean {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return statuses.some(
    (s) => s.state?.running !== undefined || s.state?.terminated?.startedAt !== undefined || s.restartCount > 0 || s.started === true,
  );
}

/** The kubelet's refusal of this pod, if it is one; undefined for any other pod. */
export function kubeletRejection(pod: Pod): KubeletRejection | undefined {
  if (podPhase(pod) !== PHASE_FAILED || isRemovedByOperator(pod)) return undefined;
  const reason = pod.status?.reason;
  if (reason === undefined || reason === '' || NOT_ADMISSION.has(reason)) return undefined;
  if (anyContainerStarted(pod)) return undefined;
  return { reason, message: pod.status?.message ?? '', node: pod.spec?.nodeName ?? '' };
}

/** Ours: the kubelet refused a replica's pod; it is removed and its slot placed again. */
export const EVENT_POD_REJECTED = 'PodRejectedByKubelet';

/** The delete and the Warning for a rejected pod (the delete carries the pod's UID, as every delete). */
export function rejectedPodRepair(pod: Pod, rejection: KubeletRejection): { action: Action; event: JobEvent } {
  const name = podName(pod);
  const detail = rejection.message === '' ? '' : `: ${rejection.message}`;
  return {
    action: { kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'rejected', rejection: rejection.reason },
    event: warning(
      EVENT_POD_REJECTED,
      `Pod ${name} was rejected by the kubelet of node ${rejection.node || '(none)'} (${rejection.reason}${detail}); it is deleted and its replica placed again, not counted as a failure`,
    ),
  };
}
