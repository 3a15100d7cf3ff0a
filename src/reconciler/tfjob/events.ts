// Event reasons and messages, verbatim from tf-operator v1.8.1 and v1.9.0 (`kubectl describe tfjob`
// output and alerting rules match on them; where v1.7.0 differs, see
// docs/differences-from-tf-operator.md). Builders take the same arguments as the Go format strings.

import { KIND } from '../../api/v1/constants.ts';
import {
  REASON_FAILED,
  REASON_FAILED_VALIDATION,
  REASON_RESTARTING,
  REASON_RESUMED,
  REASON_SUCCEEDED,
  REASON_SUSPENDED,
} from '../../api/v1/conditions.ts';

export const EVENT_NORMAL = 'Normal';
export const EVENT_WARNING = 'Warning';
export type EventType = typeof EVENT_NORMAL | typeof EVENT_WARNING;

export interface JobEvent {
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export const EVENT_SUCCEEDED = REASON_SUCCEEDED;
export const EVENT_FAILED = REASON_FAILED;
export const EVENT_RESTARTING = REASON_RESTARTING;
export const EVENT_SUSPENDED = REASON_SUSPENDED;
export const EVENT_RESUMED = REASON_RESUMED;
export const EVENT_FAILED_VALIDATION = REASON_FAILED_VALIDATION;
export const EVENT_EXITED_WITH_CODE = 'ExitedWithCode';
/** Ours: a job no replica type of which can make it Running or Succeeded (PS/Evaluator only). */
export const EVENT_NO_STATUS_DRIVER = 'NoChiefOrWorker';
/** Ours: an elastic job without a PS (all-reduce training cannot be resized). */
export const EVENT_ELASTIC_WITHOUT_PS = 'ElasticWithoutPS';
/** Ours: the job's metric reached spec.qoe.targetMetric and it asked to stop then. */
export const EVENT_TARGET_METRIC_REACHED = 'TargetMetricReached';
/** v1.8.0+'s spelling; v1.7.0 wrote `SettedPodTemplateRestartPolicy`. */
export const EVENT_SET_POD_TEMPLATE_RESTART_POLICY = 'SetPodTemplateRestartPolicy';
export const EVENT_SUCCESSFUL_CREATE_POD = 'SuccessfulCreatePod';
export const EVENT_FAILED_CREATE_POD = 'FailedCreatePod';
export const EVENT_SUCCESSFUL_DELETE_POD = 'SuccessfulDeletePod';
export const EVENT_FAILED_DELETE_POD = 'FailedDeletePod';
export const EVENT_SUCCESSFUL_CREATE_SERVICE = 'SuccessfulCreateService';
export const EVENT_FAILED_CREATE_SERVICE = 'FailedCreateService';
export const EVENT_SUCCESSFUL_DELETE_SERVICE = 'SuccessfulDeleteService';
export const EVENT_FAILED_DELETE_SERVICE = 'FailedDeleteService';
export const EVENT_SUCCESSFUL_DELETE_JOB = 'SuccessfulDeleteJob';
export const EVENT_FAILED_DELETE_JOB = 'FailedDeleteJob';
/** Ours: a pod marked for removal (scale-in, preemption, migration, …) deleted by a later pass. */
export const EVENT_REMOVAL_COMPLETED = 'RemovalCompleted';

/** Go's `%q` for the ASCII names Kubernetes allows. */
function quote(value: string): string {
  return JSON.stringify(value);
}

export const messages = {
  created: (name: string) => `${KIND} ${name} is created.`,
  running: (namespace: string, name: string) => `${KIND} ${namespace}/${name} is running.`,
  succeeded: (namespace: string, name: string) => `${KIND} ${namespace}/${name} successfully completed.`,
  targetMetricReached: (namespace: string, name: string, reached: string) =>
    `${KIND} ${namespace}/${name} successfully completed: ${reached} (spec.qoe.onTargetMetric: Stop).`,
  failedReplicas: (namespace: string, name: string, failed: number, replicaType: string) =>
    `${KIND} ${namespace}/${name} has failed because ${failed} ${replicaType} replica(s) failed.`,
  failingExitCode: (name: string, replicaType: string) => `job ${quote(name)} is failing because ${quote(replicaType)} replica(s) failed.`,
  backoffLimit: (name: string) => `Job ${name} has failed because it has reached the specified backoff limit`,
  activeDeadline: (name: string) => `Job ${name} has failed because it was active longer than specified deadline`,
  restarting: (name: string, replicaType: string) => `job ${name} is restarting because ${replicaType} replica(s) failed.`,
  suspended: (name: string) => `${KIND} ${name} is suspended.`,
  resumed: (name: string) => `${KIND} ${name} is resumed.`,
  /** tf-operator v1.7's validation event text; ours also uses it as the Failed condition message. */
  failedValidation: (reason: string) => `${KIND} failed validation because ${reason}`,
  exitedWithCode: (namespace: string, podName: string, exitCode: number) => `Pod: ${namespace}.${podName} exited with code ${exitCode}`,
  podTemplateRestartPolicy: () => 'Restart policy in pod template will be overwritten by restart policy in replica spec',
  podTemplateSchedulerName: () => 'Another scheduler is specified when gang-scheduling is enabled and it will not be overwritten',
  createdPod: (podName: string) => `Created pod: ${podName}`,
  deletedPod: (podName: string) => `Deleted pod: ${podName}`,
  createdService: (serviceName: string) => `Created service: ${serviceName}`,
  deletedService: (serviceName: string) => `Deleted service: ${serviceName}`,
  deletedJob: (name: string) => `Deleted job: ${name}`,
  errorCreating: (error: string) => `Error creating: ${error}`,
  /** Ours, in `status.scheduling.message`: the distinct refusals, retried with capped back-off. */
  noStatusDriver: (namespace: string, name: string, types: readonly string[]) =>
    `${KIND} ${namespace}/${name} has only ${types.join(' and ')} replicas and no Chief, Master or Worker: as under tf-operator it never becomes Running or Succeeded, and its pods run until the job is deleted, one of them fails, or runPolicy.activeDeadlineSeconds passes`,
  elasticWithoutPs: (namespace: string, name: string, bounds: { readonly min: number; readonly max: number }) =>
    `${KIND} ${namespace}/${name} is elastic (${bounds.min} to ${bounds.max} workers) and has no PS: workers that train together by all-reduce (MultiWorkerMirroredStrategy) fail when the operator scales them in and wait for every slot when it scales them out; unless its workers are independent, give it minReplicas = maxReplicas or a PS (see the operator's docs/elastic-contract.md)`,
  createRefused: (errors: readonly string[]) =>
    `The API server refused to create ${errors.length === 1 ? 'a replica' : `${errors.length} replicas`}: ${[...new Set(errors)].join('; ')}; retrying with capped back-off`,
  errorDeleting: (error: string) => `Error deleting: ${error}`,
  jobTerminated: () => 'Job has been terminated. Deleting PodGroup',
  deletedPodGroup: (name: string) => `Deleted PodGroup: ${name}`,
  abnormalTerminated: (podName: string, container: string, exitCode: number, message: string) =>
    `Error pod ${podName} container ${container} exitCode: ${exitCode} terminated message: ${message}`,
  abnormalWaiting: (podName: string, container: string, message: string) =>
    `Error pod ${podName} container ${container} waiting message: ${message}`,
  abnormalCondition: (podName: string, message: string) => `Error pod ${podName} condition message: ${message}`,
  removalCompleted: (podName: string, mark: string) =>
    `Deleting pod ${podName}: marked for removal (${mark}) and not deleted yet (the delete failed, was cut short by a restart, or is still on its way)`,
} as const;

export function normal(reason: string, message: string): JobEvent {
  return { type: EVENT_NORMAL, reason, message };
}

export function warning(reason: string, message: string): JobEvent {
  return { type: EVENT_WARNING, reason, message };
}

/** What the operator writes for its own API calls, as tf-operator's pod, service and job control. */
export const writeEvents = {
  createdPod: (pod: string) => normal(EVENT_SUCCESSFUL_CREATE_POD, messages.createdPod(pod)),
  failedCreatePod: (error: string) => warning(EVENT_FAILED_CREATE_POD, messages.errorCreating(error)),
  deletedPod: (pod: string) => normal(EVENT_SUCCESSFUL_DELETE_POD, messages.deletedPod(pod)),
  failedDeletePod: (error: string) => warning(EVENT_FAILED_DELETE_POD, messages.errorDeleting(error)),
  createdService: (service: string) => normal(EVENT_SUCCESSFUL_CREATE_SERVICE, messages.createdService(service)),
  failedCreateService: (error: string) => warning(EVENT_FAILED_CREATE_SERVICE, messages.errorCreating(error)),
  deletedService: (service: string) => normal(EVENT_SUCCESSFUL_DELETE_SERVICE, messages.deletedService(service)),
  failedDeleteService: (error: string) => warning(EVENT_FAILED_DELETE_SERVICE, messages.errorDeleting(error)),
  deletedJob: (name: string) => normal(EVENT_SUCCESSFUL_DELETE_JOB, messages.deletedJob(name)),
  failedDeleteJob: (error: string) => warning(EVENT_FAILED_DELETE_JOB, messages.errorDeleting(error)),
} as const;
