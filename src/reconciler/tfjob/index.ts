// Public surface of the pure TFJob reconciler, for the controller runtime.

export type { Action, DeleteReason, Outcome, ReconcileInput, ReconcileOptions, ReconcilePlan, SchedulingInput } from './reconcile.ts';
export { reconcileTFJob } from './reconcile.ts';
export {
  jobLabels,
  podLabels,
  replicaLabels,
  isMasterRole,
  replicaName,
  jobNameLabelValue,
  ownerReference,
  isControlledBy,
} from './identity.ts';
export { buildPod, podRestartPolicy } from './pod-builder.ts';
export type { Placement, PodBuildOptions, BuiltPod } from './pod-builder.ts';
export { buildService } from './service-builder.ts';
export { DEFAULT_SCHEDULER_NAME, describeSchedulers, schedulersNamedByTemplates, type ReplicaScheduler } from './binding.ts';
export { classifyRefusal, explainRefusal, NOT_RETRIED, type RefusalClass } from './refusal-hints.ts';
export { clusterSpec, elasticTfConfig, isDistributed, normalTfConfig, replicaAddress, replicaPort, sparseTfConfig } from './tf-config.ts';
export type { ClusterLayout } from './tf-config.ts';
export { buildJobView, elasticWorkerTarget, tfConfigFor, workersSummary, type ElasticOptions } from './job-view.ts';
export type { JobView } from './job-view.ts';
export {
  setCondition,
  updateConditions,
  newCondition,
  hasCondition,
  isFinished,
  isFailed,
  isSucceeded,
  isRunning,
  isSuspended,
} from './conditions.ts';
export { decideJobStatus, isWorker0Completed } from './status-decision.ts';
export { countPods, podContribution, toReplicaStatus } from './replica-status.ts';
export { classifyExitCode, decideFailedPod, isRetryableExitCode, UNKNOWN_EXIT_CODE } from './restart.ts';
export { countRestarts, pastBackoffLimit, exceedsBackoffLimit } from './backoff.ts';
export { pastActiveDeadline, ttlDecision, untilActiveDeadline } from './time-limits.ts';
export { selectForCleanup } from './cleanup.ts';
export type { TtlDecision } from './time-limits.ts';
export { planFixedPods, planElasticPods, planServices } from './replica-plan.ts';
export { boundsWithoutGivenUp, givenUpWorkerSlots, EVENT_WORKER_SLOT_GIVEN_UP } from './given-up-slots.ts';
export { abnormalPodEvents } from './abnormal-pods.ts';
export { kubeletRejection, EVENT_POD_REJECTED, type KubeletRejection } from './kubelet-rejection.ts';
export * from './events.ts';
export { conditionFor } from './condition-constructors.ts';
export { formatTime, parseTime } from './time.ts';
