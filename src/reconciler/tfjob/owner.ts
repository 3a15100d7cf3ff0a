// The single controller owner reference of every pod and service: Kubernetes GC deletes them with the
// job, and Kubeflow Pipelines' foreground deletion waits for them (blockOwnerDeletion).

import { API_VERSION, KIND } from '../../api/v1/constants.ts';
import type { OwnerReference } from '../../api/v1/k8s-types.ts';

export interface OwnerIdentity {
  readonly name: string;
  readonly uid: string;
}

export function ownerReference(job: OwnerIdentity): OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: job.name, uid: job.uid, controller: true, blockOwnerDeletion: true };
}

/** Whether the job (by UID) is the object's controller; pods merely carrying our labels are not ours. */
export function isControlledBy(object: { metadata?: { ownerReferences?: readonly OwnerReference[] } }, jobUid: string): boolean {
  return (object.metadata?.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === jobUid);
}
