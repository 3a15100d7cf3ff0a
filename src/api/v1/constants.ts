// Every label, annotation, finalizer and well-known name the operator reads or writes, in one place.
// The `training.kubeflow.org/*` keys and the names below are tf-operator's; clients (Kubeflow SDK,
// Pipelines, dashboards) select pods and read jobs by them, so they must never change.

export const GROUP = 'kubeflow.org';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'TFJob';
export const PLURAL = 'tfjobs';

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
/**
 * The node chosen for a pod whose final binding is left to kube-scheduler (a template with
 * constraints the operator does not evaluate: volumes, pod affinity, spread, host ports, resource
 * claims). The pod carries no `nodeName` until bound; this tells the operator where it will go.
 */
export const ANNOTATION_PLACED_NODE = `${OUR_PREFIX}/placed-node`;
/** Elastic worker bounds for clusters where the CRD in use prunes `spec.elasticPolicy` (upstream CRD). */
export const ANNOTATION_MIN_WORKERS = `${OUR_PREFIX}/min-workers`;
export const ANNOTATION_MAX_WORKERS = `${OUR_PREFIX}/max-workers`;

export const DEFAULT_CONTAINER_NAME = 'tensorflow';
export const DEFAULT_PORT_NAME = 'tfjob-port';
export const DEFAULT_PORT = 2222;

/** `job-role` label value put on the replica that leads the job (Chief/Master, or Worker 0 without them). */
export const JOB_ROLE_MASTER = 'master';

/**
 * Pre-v1.6 label keys (kubeflow/common <= v0.4.3). v1.6+ no longer emits them; the old `kubeflow-tfjob`
 * SDK still selects pods by them, so the pod builder can add them on request (off by default).
 */
export const LEGACY_LABEL_GROUP_NAME = 'group-name';
export const LEGACY_LABEL_JOB_NAME = 'job-name';
export const LEGACY_LABEL_REPLICA_TYPE = 'replica-type';
export const LEGACY_LABEL_REPLICA_INDEX = 'replica-index';
export const LEGACY_LABEL_JOB_ROLE = 'job-role';

/** Environment variable of the `tensorflow` container carrying the cluster layout. */
export const ENV_TF_CONFIG = 'TF_CONFIG';

/**
 * Set on a pod (before deleting it) when the operator removes it on purpose: a scale-in to make room
 * for another job (`preemption`) or to shrink an elastic job (`scale-in`). The status logic then never
 * counts the pod's termination as a replica failure, which tf-operator would (issue #2124).
 */
export const ANNOTATION_REMOVAL = `${OUR_PREFIX}/removal`;
export const REMOVAL_PREEMPTION = 'preemption';
export const REMOVAL_SCALE_IN = 'scale-in';
/** The pod's node was deleted or stayed NotReady past the grace period: it is recreated elsewhere. */
export const REMOVAL_NODE_LOST = 'node-lost';
/**
 * kube-scheduler kept refusing the pod on the node the operator chose for it (a constraint only it
 * evaluates, e.g. pod anti-affinity or a volume's node affinity): it is recreated on another node.
 */
export const REMOVAL_REFUSED = 'refused-by-scheduler';

/**
 * Optional scaling curve of a job: comma-separated throughputs with 1, 2, ... workers (any unit). The
 * `ours` policy stops scaling out past the knee while other jobs wait (docs/tfjob-extensions.md).
 */
export const ANNOTATION_SCALING_CURVE = `${OUR_PREFIX}/scaling-curve`;

/**
 * Which replica's log carries the job's training progress (docs/progress-protocol.md): `<type>-<index>`
 * (type case-insensitive, e.g. `worker-1`, `Evaluator-0`), or `none` to read no progress for the job.
 * Without it: the Chief (or Master) replica 0, else Worker 0 (docs/tfjob-extensions.md).
 */
export const ANNOTATION_PROGRESS_REPLICA = `${OUR_PREFIX}/progress-replica`;

/**
 * `"true"`: the job checkpoints and may be suspended whole (all pods deleted, back to the queue, and
 * resumed from its checkpoint when admitted again) to make room for jobs with less attained service
 * (`ours`; docs/tfjob-extensions.md). `"false"` or absent: never suspended by the scheduler.
 */
export const ANNOTATION_SUSPENDABLE = `${OUR_PREFIX}/suspendable`;

/**
 * The job's distributed-training style (docs/elastic-contract.md). `ParameterServerStrategy` and
 * `MultiWorkerMirroredStrategy` need every worker slot TF_CONFIG lists before the chief trains, so an
 * elastic job of these styles is admitted with its maximum of workers or not at all (its minimum is
 * raised to its maximum). `PS` (tf.compat.v1) and `Estimator`, or no annotation: any number of workers.
 */
export const ANNOTATION_TRAINING_STYLE = `${OUR_PREFIX}/training-style`;
export const TRAINING_STYLES_NEEDING_ALL_WORKERS: readonly string[] = ['ParameterServerStrategy', 'MultiWorkerMirroredStrategy'];
export const TRAINING_STYLES: readonly string[] = [...TRAINING_STYLES_NEEDING_ALL_WORKERS, 'PS', 'Estimator'];

/** On our CRD: which upstream CRD its schema was generated from (hack/gen-crd.ts). */
export const ANNOTATION_CRD_GENERATED_FROM = `${OUR_PREFIX}/generated-from`;

/**
 * Label (and taint key) of the node pools that the demo, benchmarks and tests create for a scenario,
 * so each run's pods stay on its own nodes. Not used by the operator itself.
 */
export const LABEL_NODE_POOL = `${OUR_PREFIX}/pool`;
