// A kubelet that refused a pod (OutOfcpu, ...; kubelet-rejection.ts) knows something the API does not
// show the scheduler (capacity held outside the API, a device not registered): placed there again,
// the replica would be refused again, deleted and re-placed without end. So the job avoids that node
// for a while, as it does a node kube-scheduler refused its pod on.
import type { V1Pod } from '@kubernetes/client-node';
import { kubeletRejection } from '../../reconciler/tfjob/index.ts';
import { controllingJobKey } from '../informers.ts';

/** The job and node to keep apart, when this pod event is a kubelet newly refusing one of our pods. */
export function newlyRejectedAt(pod: V1Pod, old: V1Pod | undefined): { readonly job: string; readonly node: string } | undefined {
  const rejection = kubeletRejection(pod);
  if (rejection === undefined || rejection.node === '') return undefined;
  if (old !== undefined && kubeletRejection(old) !== undefined) return undefined;
  const job = controllingJobKey(pod);
  return job === undefined ? undefined : { job, node: rejection.node };
}
