// tf-operator's TFJob events, restated as facts per pinned release of kubeflow/training-operator
// (tags v1.7.0, v1.8.1, v1.9.0; release-1.9 has the same text). Each entry names the file the
// `Recorder.Event`/`Eventf` call and its reason constant live in at that tag. Formats are Go's
// fmt verbs (%s %v %d %q) with the arguments listed in `args`; `reason: undefined` = not emitted
// by that release.

export type UpstreamVersion = 'v1.7.0' | 'v1.8.1' | 'v1.9.0';
export const UPSTREAM_VERSIONS: readonly UpstreamVersion[] = ['v1.7.0', 'v1.8.1', 'v1.9.0'];

export interface UpstreamEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly format: string;
}

export interface UpstreamCase {
  /** Where the call is, relative to the repository root (the same path at every pinned tag). */
  readonly source: string;
  readonly args: readonly string[];
  readonly byVersion: Readonly<Record<UpstreamVersion, UpstreamEvent | undefined>>;
}

function same(event: UpstreamEvent): Record<UpstreamVersion, UpstreamEvent> {
  return { 'v1.7.0': event, 'v1.8.1': event, 'v1.9.0': event };
}

const COMMON_POD = 'pkg/controller.v1/common/pod.go';
const COMMON_JOB = 'pkg/controller.v1/common/job.go';
const TF_CONTROLLER = 'pkg/controller.v1/tensorflow/tfjob_controller.go';
const POD_CONTROL = 'pkg/controller.v1/control/pod_control.go';
const SERVICE_CONTROL = 'pkg/controller.v1/control/service_control.go';
const CORE_JOB = 'pkg/core/job.go';
const TEMPLATE_RESTART_POLICY = 'Restart policy in pod template will be overwritten by restart policy in replica spec';

export const UPSTREAM_EVENTS = {
  /** createNewPod: the replica's pod template sets restartPolicy. Renamed by #1980 (Jan 2024, v1.8.0). */
  templateRestartPolicy: {
    source: COMMON_POD,
    args: [],
    byVersion: {
      'v1.7.0': { type: 'Warning', reason: 'SettedPodTemplateRestartPolicy', format: TEMPLATE_RESTART_POLICY },
      'v1.8.1': { type: 'Warning', reason: 'SetPodTemplateRestartPolicy', format: TEMPLATE_RESTART_POLICY },
      'v1.9.0': { type: 'Warning', reason: 'SetPodTemplateRestartPolicy', format: TEMPLATE_RESTART_POLICY },
    },
  },
  /** ReconcilePods: the tensorflow container of a pod terminated (every reconcile). */
  exitedWithCode: {
    source: COMMON_POD,
    args: ['namespace', 'pod', 'exitCode'],
    byVersion: same({ type: 'Normal', reason: 'ExitedWithCode', format: 'Pod: %v.%v exited with code %v' }),
  },
  /** ReconcilePods: a Failed pod whose restart policy restarts it. */
  restarting: {
    source: COMMON_POD,
    args: ['name', 'replicaType'],
    byVersion: same({ type: 'Warning', reason: 'TFJobRestarting', format: 'job %s is restarting because %s replica(s) failed.' }),
  },
  /** ReconcilePods: ExitCode policy, permanent exit code. v1.7.0 wrote no event here. */
  permanentExitCode: {
    source: COMMON_POD,
    args: ['name', 'replicaType'],
    byVersion: {
      'v1.7.0': undefined,
      'v1.8.1': { type: 'Warning', reason: 'TFJobFailed', format: 'job %q is failing because %q replica(s) failed.' },
      'v1.9.0': { type: 'Warning', reason: 'TFJobFailed', format: 'job %q is failing because %q replica(s) failed.' },
    },
  },
  /** UpdateJobStatus: the chief (or worker 0 / all workers) succeeded. */
  succeeded: {
    source: TF_CONTROLLER,
    args: ['namespace', 'name'],
    byVersion: same({ type: 'Normal', reason: 'TFJobSucceeded', format: 'TFJob %s/%s successfully completed.' }),
  },
  /** UpdateJobStatus: failed replicas under a policy that does not restart them. */
  failedReplicas: {
    source: TF_CONTROLLER,
    args: ['namespace', 'name', 'failed', 'replicaType'],
    byVersion: same({ type: 'Normal', reason: 'TFJobFailed', format: 'TFJob %s/%s has failed because %d %s replica(s) failed.' }),
  },
  suspended: {
    source: COMMON_JOB,
    args: ['kind', 'name'],
    byVersion: same({ type: 'Normal', reason: 'TFJobSuspended', format: '%s %s is suspended.' }),
  },
  resumed: {
    source: COMMON_JOB,
    args: ['kind', 'name'],
    byVersion: same({ type: 'Normal', reason: 'TFJobResumed', format: '%s %s is resumed.' }),
  },
  backoffLimit: {
    source: COMMON_JOB,
    args: ['name'],
    byVersion: same({
      type: 'Normal',
      reason: 'TFJobFailed',
      format: 'Job %s has failed because it has reached the specified backoff limit',
    }),
  },
  activeDeadline: {
    source: COMMON_JOB,
    args: ['name'],
    byVersion: same({
      type: 'Normal',
      reason: 'TFJobFailed',
      format: 'Job %s has failed because it was active longer than specified deadline',
    }),
  },
  /** Reconcile: ValidateV1TFJob failed. v1.8.0 moved validation to the webhook: no event since. */
  failedValidation: {
    source: TF_CONTROLLER,
    args: ['errors'],
    byVersion: {
      'v1.7.0': { type: 'Warning', reason: 'TFJobFailedValidation', format: 'TFJob failed validation because %s' },
      'v1.8.1': undefined,
      'v1.9.0': undefined,
    },
  },
  /** RecordAbnormalPods: reason is the container state's / pod condition's own reason. */
  abnormalTerminated: {
    source: CORE_JOB,
    args: ['pod', 'container', 'exitCode', 'message'],
    byVersion: same({
      type: 'Warning',
      reason: '<terminated.reason>',
      format: 'Error pod %s container %s exitCode: %d terminated message: %s',
    }),
  },
  abnormalWaiting: {
    source: CORE_JOB,
    args: ['pod', 'container', 'message'],
    byVersion: same({ type: 'Warning', reason: '<waiting.reason>', format: 'Error pod %s container %s waiting message: %s' }),
  },
  abnormalCondition: {
    source: CORE_JOB,
    args: ['pod', 'message'],
    byVersion: same({ type: 'Warning', reason: '<condition.reason>', format: 'Error pod %s condition message: %s' }),
  },
  createdPod: {
    source: POD_CONTROL,
    args: ['pod'],
    byVersion: same({ type: 'Normal', reason: 'SuccessfulCreatePod', format: 'Created pod: %v' }),
  },
  failedCreatePod: {
    source: POD_CONTROL,
    args: ['error'],
    byVersion: same({ type: 'Warning', reason: 'FailedCreatePod', format: 'Error creating: %v' }),
  },
  deletedPod: {
    source: POD_CONTROL,
    args: ['pod'],
    byVersion: same({ type: 'Normal', reason: 'SuccessfulDeletePod', format: 'Deleted pod: %v' }),
  },
  failedDeletePod: {
    source: POD_CONTROL,
    args: ['error'],
    byVersion: same({ type: 'Warning', reason: 'FailedDeletePod', format: 'Error deleting: %v' }),
  },
  createdService: {
    source: SERVICE_CONTROL,
    args: ['service'],
    byVersion: same({ type: 'Normal', reason: 'SuccessfulCreateService', format: 'Created service: %v' }),
  },
  failedCreateService: {
    source: SERVICE_CONTROL,
    args: ['error'],
    byVersion: same({ type: 'Warning', reason: 'FailedCreateService', format: 'Error creating: %v' }),
  },
  deletedService: {
    source: SERVICE_CONTROL,
    args: ['service'],
    byVersion: same({ type: 'Normal', reason: 'SuccessfulDeleteService', format: 'Deleted service: %v' }),
  },
  failedDeleteService: {
    source: SERVICE_CONTROL,
    args: ['error'],
    byVersion: same({ type: 'Warning', reason: 'FailedDeleteService', format: 'Error deleting: %v' }),
  },
  /** DeleteJob (TTL). */
  deletedJob: {
    source: TF_CONTROLLER,
    args: ['name'],
    byVersion: same({ type: 'Normal', reason: 'SuccessfulDeleteJob', format: 'Deleted job: %v' }),
  },
  failedDeleteJob: {
    source: TF_CONTROLLER,
    args: ['error'],
    byVersion: same({ type: 'Warning', reason: 'FailedDeleteJob', format: 'Error deleting: %v' }),
  },
} as const satisfies Record<string, UpstreamCase>;

// Not shared: tf-operator writes JobTerminated, SuccessfulDeletePodGroup, FailedDeletePodGroup and
// Set(ted)PodTemplateSchedulerName only with gang scheduling (PodGroups), which we do not implement.

/** Go's Sprintf for the verbs above; `%q` of the ASCII names Kubernetes allows is a JSON string. */
export function goSprintf(format: string, args: readonly (string | number)[]): string {
  let next = 0;
  return format.replace(/%[svdq]/g, (verb) => {
    const value = args[next++];
    if (value === undefined) throw new Error(`missing argument for ${verb} in ${format}`);
    return verb === '%q' ? JSON.stringify(String(value)) : String(value);
  });
}
