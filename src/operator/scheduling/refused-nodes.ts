// Nodes a job's pods are kept off for a while after a node refused one of them: kube-scheduler
// refusing it there (pass/apply.ts), or the node's kubelet refusing to admit it (OutOfcpu, ...;
// kubelet-rejection.ts). A kubelet that refused knows something the API does not show the scheduler
// (capacity held outside the API, a device not registered): placed there again, the replica would be
// refused again, deleted and re-placed without end.
import type { V1Pod } from '@kubernetes/client-node';
import { kubeletRejection } from '../../reconciler/tfjob/index.ts';
import type { InformerHandler } from '../../runtime/informer.ts';
import type { Logger } from '../../runtime/logger.ts';
import { controllingJobKey } from '../informers.ts';
import type { DecisionBook } from './decisions/book.ts';
import { rejectedByKubelet } from './messages.ts';

/** `status.scheduling.reason` of a job whose pod a kubelet refused, until its replica is placed again. */
export const REASON_REJECTED_BY_KUBELET = 'PodRejectedByKubelet';

/** A kubelet newly refusing one of a job's pods: which job, pod and node, and the kubelet's reason. */
export interface NewRejection {
  readonly job: string;
  readonly pod: string;
  readonly node: string;
  readonly reason: string;
}

/** The job and node to keep apart, when this pod event is a kubelet newly refusing one of our pods. */
export function newlyRejectedAt(pod: V1Pod, old: V1Pod | undefined): NewRejection | undefined {
  const rejection = kubeletRejection(pod);
  if (rejection === undefined || rejection.node === '') return undefined;
  if (old !== undefined && kubeletRejection(old) !== undefined) return undefined;
  const job = controllingJobKey(pod);
  return job === undefined ? undefined : { job, pod: pod.metadata?.name ?? '', node: rejection.node, reason: rejection.reason };
}

/**
 * A pod informer handler: the job avoids, for `avoidMs` (--refused-node-avoid-for), each node whose
 * kubelet newly refused its pod: long enough for the pod to be placed elsewhere, short enough that a
 * refusal that has gone (the conflicting pod finished) does not keep the node from the job for good.
 * Its status says so until the replica is placed again (the next placement's outcome replaces it).
 */
export function avoidNodesThatRefuse(
  book: Pick<DecisionBook, 'avoid' | 'explain'>,
  log: Logger,
  avoidMs: number,
  enqueue: (job: string) => void,
): InformerHandler<V1Pod> {
  return (type, pod, old) => {
    const rejected = type === 'delete' ? undefined : newlyRejectedAt(pod, old);
    if (rejected === undefined) return;
    const avoidSeconds = Math.round(avoidMs / 1000);
    book.avoid(rejected.job, rejected.node, Date.now() + avoidMs);
    book.explain(rejected.job, REASON_REJECTED_BY_KUBELET, rejectedByKubelet(rejected.pod, rejected.node, rejected.reason, avoidSeconds));
    enqueue(rejected.job);
    log.info({ tfjob: rejected.job, node: rejected.node, avoidSeconds }, 'Kubelet refused a pod; node avoided for the job');
  };
}
