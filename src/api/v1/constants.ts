// Every label, annotation, finalizer and well-known name the operator reads or writes, in one place.
// The `training.kubeflow.org/*` keys and the names below are tf-operator's; clients (Kubeflow SDK,
// Pipelines, dashboards) select pods and read jobs by them, so they must never change.

export const GROUP = 'kubeflow.org';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'TFJob';
export const PLURAL = 'tfjobs';
export const SINGULAR = 'tfjob';

/** Controller and event-source name, as tf-operator's (kubectl describe shows it as the event source). */
export const CONTROLLER_NAME = 'tfjob-controller';

export const LABEL_OPERATOR_NAME = 'training.kubeflow.org/operator-name';
export const LABEL_JOB_NAME = 'training.kubeflow.org/job-name';
export const LABEL_REPLICA_TYPE = 'training.kubeflow.org/replica-type';
export const LABEL_REPLICA_INDEX = 'training.kubeflow.org/replica-index';
export const LABEL_JOB_ROLE = 'training.kubeflow.org/job-role';

/** Our own keys live under this prefix, never under Kubeflow's. */
export const OUR_PREFIX = 'tfjob-operator.kubeflow.org';
/** Node chosen by the scheduling core, recorded on the pod so a restarted operator can audit placement. */
export const ANNOTATION_PLACED_BY = `${OUR_PREFIX}/placed-by`;
/** Elastic worker bounds for clusters where the CRD in use prunes `spec.elasticPolicy` (upstream CRD). */
export const ANNOTATION_MIN_WORKERS = `${OUR_PREFIX}/min-workers`;
export const ANNOTATION_MAX_WORKERS = `${OUR_PREFIX}/max-workers`;

export const DEFAULT_CONTAINER_NAME = 'tensorflow';
export const DEFAULT_PORT_NAME = 'tfjob-port';
export const DEFAULT_PORT = 2222;
