// How the reconciler marks what it owns. Names (`<job>-<lowercase type>-<index>`): TF_CONFIG host
// names and every client that looks pods up by name depend on them. Labels: clients select by them
// (Kubeflow SDK: job-name, replica-type, replica-index, job-role=master), and the headless services
// select pods by the first four. The single controller owner reference: Kubernetes GC deletes pods and
// services with the job, and Kubeflow Pipelines' foreground deletion waits for them (blockOwnerDeletion).

import {
  API_VERSION,
  CONTROLLER_NAME,
  GROUP,
  JOB_ROLE_MASTER,
  KIND,
  LABEL_JOB_NAME,
  LABEL_JOB_ROLE,
  LABEL_OPERATOR_NAME,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
  LEGACY_LABEL_GROUP_NAME,
  LEGACY_LABEL_JOB_NAME,
  LEGACY_LABEL_JOB_ROLE,
  LEGACY_LABEL_REPLICA_INDEX,
  LEGACY_LABEL_REPLICA_TYPE,
} from '../../api/v1/constants.ts';
import type { OwnerReference } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_WORKER, isChiefOrMaster } from '../../api/v1/replica-types.ts';

export type Labels = Record<string, string>;

/** The two labels every object of the job carries; also the selector for listing them. */
export function jobLabels(jobName: string): Labels {
  return { [LABEL_OPERATOR_NAME]: CONTROLLER_NAME, [LABEL_JOB_NAME]: jobNameLabelValue(jobName) };
}

/** Labels of replica `index` of `replicaType`: the service labels and the service selector. */
export function replicaLabels(jobName: string, replicaType: string, index: number): Labels {
  return {
    ...jobLabels(jobName),
    [LABEL_REPLICA_TYPE]: replicaType.toLowerCase(),
    [LABEL_REPLICA_INDEX]: String(index),
  };
}

/**
 * tf-operator's `IsMasterRole`: every Chief/Master replica when the job has a Chief or Master spec,
 * otherwise Worker 0.
 */
export function isMasterRole(replicaTypes: Iterable<string>, replicaType: string, index: number): boolean {
  const types = [...replicaTypes];
  if (types.some(isChiefOrMaster)) return isChiefOrMaster(replicaType);
  return replicaType === REPLICA_TYPE_WORKER && index === 0;
}

export interface PodLabelOptions {
  /** Also emit the pre-v1.6 keys (`group-name`, `job-name`, ...) for the old `kubeflow-tfjob` SDK. */
  readonly legacyLabels?: boolean;
}

/** Operator labels of a pod; they overwrite template labels with the same key. */
export function podLabels(
  jobName: string,
  replicaTypes: Iterable<string>,
  replicaType: string,
  index: number,
  options: PodLabelOptions = {},
): Labels {
  const master = isMasterRole(replicaTypes, replicaType, index);
  const labels: Labels = replicaLabels(jobName, replicaType, index);
  if (master) labels[LABEL_JOB_ROLE] = JOB_ROLE_MASTER;
  if (options.legacyLabels) {
    labels[LEGACY_LABEL_GROUP_NAME] = GROUP;
    labels[LEGACY_LABEL_JOB_NAME] = jobNameLabelValue(jobName);
    labels[LEGACY_LABEL_REPLICA_TYPE] = replicaType.toLowerCase();
    labels[LEGACY_LABEL_REPLICA_INDEX] = String(index);
    if (master) labels[LEGACY_LABEL_JOB_ROLE] = JOB_ROLE_MASTER;
  }
  return labels;
}

/** tf-operator's `GenGeneralName`: any `/` becomes `-`. */
export function replicaName(jobName: string, replicaType: string, index: number): string {
  return `${jobName}-${replicaType.toLowerCase()}-${index}`.replaceAll('/', '-');
}

/** Value of the job-name label (`/` replaced, as in tf-operator's `GenLabels`). */
export function jobNameLabelValue(jobName: string): string {
  return jobName.replaceAll('/', '-');
}

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
