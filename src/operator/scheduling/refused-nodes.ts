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

/**
 * How long a node that refused a job's pod is left out of that job's placements: long enough for the
 * pod to be placed elsewhere, short enough that a refusal that has gone (the conflicting pod
 * finished) does not keep the node from the job for good.
 */
export const AVOID_REFUSED_NODE_MS = 10 * 60_000;

/** The job and node to keep apart, when this pod event is a kubelet newly refusing one of our pods. */
export function newlyRejectedAt(pod: V1Pod, old: V1Pod | undefined): { readonly job: string; readonly node: string } | undefined {
  const rejection = kubeletRejection(pod);
  if (rejection === undefined || rejection.node === '') return undefined;
  if (old !== undefined && kubeletRejection(old) !== undefined) return undefined;
  const job = controllingJobKey(pod);
  return job === undefined ? undefined : { job, node: rejection.node };
}

/** A pod informer handler: the job avoids, for `avoidMs`, each node whose kubelet newly refused its pod. */
export function avoidNodesThatRefuse(book: Pick<DecisionBook, 'avoid'>, log: Logger, avoidMs: number): InformerHandler<V1Pod> {
  return (type, pod, old) => {
    const rejected = type === 'delete' ? undefined : newlyRejectedAt(pod, old);
    if (rejected === undefined) return;
    book.avoid(rejected.job, rejected.node, Date.now() + avoidMs);
    log.info(
      { tfjob: rejected.job, node: rejected.node, avoidSeconds: Math.round(avoidMs / 1000) },
      'Kubelet refused a pod; node avoided for the job',
    );
  };
}
