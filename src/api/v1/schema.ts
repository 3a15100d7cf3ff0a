// zod schemas of the TFJob fields the controller reads. They check shapes only (types, integers,
// objects); value rules (known replica types, policies, containers) live in validation.ts so that a
// job coming from a cluster with the upstream CRD gets the same, field-named, verdict as admission
// gives on ours. The pod template stays loose: the apiserver validated it against the full
// PodTemplateSpec schema, and pods are built from a deep copy of it.

import type { PodTemplateSpec as V1PodTemplateSpec } from './k8s-types.ts';
import { z } from 'zod';

/**
 * Optional field. Absent and JSON `null` mean the same to Go's decoder (nil pointer), so both parse
 * to `undefined` (a preprocess rather than a transform keeps the key optional in the inferred type).
 */
function opt<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema.optional());
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const int32 = z.int32();
/** Go int64 fields; JSON numbers beyond 2^53 cannot be represented exactly anyway. */
const int64 = z.int();

/** `resource.Quantity` (int-or-string). */
const Quantity = z.union([z.string(), z.number()]);

export const PodTemplateSpecSchema = z.custom<V1PodTemplateSpec>(isPlainObject, { message: 'expected object' });

export const ReplicaSpecSchema = z.object({
  replicas: opt(int32),
  template: opt(PodTemplateSpecSchema),
  restartPolicy: opt(z.string()),
});

export const SchedulingPolicySchema = z.object({
  minAvailable: opt(int32),
  queue: opt(z.string()),
  minResources: opt(z.record(z.string(), Quantity)),
  priorityClass: opt(z.string()),
  scheduleTimeoutSeconds: opt(int32),
});

export const RunPolicySchema = z.object({
  cleanPodPolicy: opt(z.string()),
  ttlSecondsAfterFinished: opt(int32),
  activeDeadlineSeconds: opt(int64),
  backoffLimit: opt(int32),
  schedulingPolicy: opt(SchedulingPolicySchema),
  suspend: opt(z.boolean()),
  /** v1.9 field: a job managed by another controller (e.g. Kueue MultiKueue) is left alone. */
  managedBy: opt(z.string()),
});

/** Ours: elastic bounds of the `Worker` replica type (see docs/tfjob-extensions.md). */
export const ElasticPolicySchema = z.object({
  minReplicas: opt(int32),
  maxReplicas: opt(int32),
});

/**
 * Ours: a performance target (DQoES; docs/tfjob-extensions.md). Exactly one of the four targets; value
 * rules live in validation.ts (and as CEL in our CRD), shapes here.
 */
export const QoeSpecSchema = z.object({
  stepsPerSecond: opt(z.number()),
  secondsPerStep: opt(z.number()),
  /** RFC 3339 time the job should be done by. */
  deadline: opt(z.string()),
  /** Seconds after creation the job should be done by. */
  deadlineSeconds: opt(int64),
  /** The global step training ends at (required with a deadline: progress is measured against it). */
  totalSteps: opt(int64),
  tolerance: opt(z.number()),
  adjustStep: opt(z.number()),
  /** The metric value (as the job reports it, in its direction) at which the job is done. */
  targetMetric: opt(z.number()),
  /** Shrink (default: down to its minimum workers) or Stop (Succeeded) once it is reached. */
  onTargetMetric: opt(z.string()),
});

export const TFJobSpecSchema = z.object({
  runPolicy: opt(RunPolicySchema),
  successPolicy: opt(z.string()),
  // Not `z.record(z.enum(...))`: unknown keys must reach validation.ts to be reported by name.
  // Optional here so that its absence is reported by validation.ts with tf-operator's message.
  tfReplicaSpecs: opt(z.record(z.string(), opt(ReplicaSpecSchema))),
  enableDynamicWorker: opt(z.boolean()),
  elasticPolicy: opt(ElasticPolicySchema),
  qoe: opt(QoeSpecSchema),
});

export const JobConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: opt(z.string()),
  message: opt(z.string()),
  lastUpdateTime: opt(z.string()),
  lastTransitionTime: opt(z.string()),
});

export const ReplicaStatusSchema = z.looseObject({
  active: opt(int32),
  succeeded: opt(int32),
  failed: opt(int32),
  labelSelector: opt(z.unknown()),
  selector: opt(z.string()),
});

export const QUEUE_WAITING = 'Waiting';
export const QUEUE_RUNNING = 'Running';
export const QUEUE_FINISHED = 'Finished';
export const QUEUE_STATES = [QUEUE_WAITING, QUEUE_RUNNING, QUEUE_FINISHED] as const;

export const WorkerCountsSchema = z.object({
  current: opt(int32),
  min: opt(int32),
  max: opt(int32),
});

/** Ours: the scheduling core's view of the job (`status.scheduling`). */
export const SchedulingStatusSchema = z.object({
  queue: opt(z.enum(QUEUE_STATES)),
  /** Effective weight in (0, 1), as a decimal string (Kubernetes API conventions avoid floats). */
  weight: opt(z.union([z.string(), z.number()])),
  /** The ClusterQueue whose quota the job is charged to (docs/queues.md). */
  clusterQueue: opt(z.string()),
  /** First time the job entered the waiting queue; never reset (the paper's t_j). */
  enqueueTime: opt(z.string()),
  workers: opt(WorkerCountsSchema),
  /** `current/min/max`, for the printer column. */
  workersSummary: opt(z.string()),
  reason: opt(z.string()),
  message: opt(z.string()),
  starving: opt(z.boolean()),
  preemptions: opt(int32),
  scaleOuts: opt(int32),
  lastScaleTime: opt(z.string()),
  /** Worker-seconds the job's running workers have held (ours: attained-service demotion). */
  attainedWorkerSeconds: opt(z.number().int().nonnegative()),
});

export const PROGRESS_PHASES = ['Progressing', 'Slowing', 'Converged', 'Diverged'] as const;

/**
 * Ours: a job whose pods all run but which printed no progress line for longer than the operator's
 * --not-training-after (`status.progress.notTraining`; docs/reliability.md).
 */
export const NotTrainingSchema = z.object({
  /** When the silence began: the later of its last pod becoming Running and its last progress line. */
  since: z.string(),
  /** `WaitingForWorkers` (a style that needs every worker slot, some without a Running pod) or `NoProgress`. */
  reason: z.string(),
  message: z.string(),
});

/** Ours: the job's training progress as read from its log (`status.progress`; see docs/progress-protocol.md). */
export const ProgressStatusSchema = z.object({
  phase: opt(z.enum(PROGRESS_PHASES)),
  /** When the job entered this phase. */
  since: opt(z.string()),
  /** The EMA-smoothed metric and its name, as decimal strings (API conventions avoid floats). */
  metric: opt(z.string()),
  /** The metric of the last sample, unsmoothed: what the job's own log printed last. */
  latest: opt(z.string()),
  metricName: opt(z.string()),
  higherIsBetter: opt(z.boolean()),
  /** Relative improvement per relative progress over the recent window (α compares with it). */
  growth: opt(z.string()),
  step: opt(z.number().int().nonnegative()),
  epoch: opt(z.number().int().nonnegative()),
  /** The job's declared plan (docs/progress-protocol.md, "The job's plan"): epochs and/or global steps. */
  plannedEpochs: opt(z.number().int().positive()),
  plannedSteps: opt(z.number().int().positive()),
  /** Share of the plan done, as a decimal string in [0, 1]. */
  fractionDone: opt(z.string()),
  /** When the plan will be done at the rate measured with the present workers (RFC 3339). */
  eta: opt(z.string()),
  /** `3/90 epochs (3%)`: the printer column. */
  plan: opt(z.string()),
  /** When the last sample was measured. */
  lastUpdate: opt(z.string()),
  notTraining: opt(NotTrainingSchema),
});

export const QOE_CLASSES = ['Ahead', 'Satisfied', 'Behind', 'Unknown'] as const;

/** Ours: the job against its performance target (`status.qoe`), from the scheduler's last pass. */
export const QoeStatusSchema = z.object({
  class: opt(z.enum(QOE_CLASSES)),
  /** When the job entered this class. */
  since: opt(z.string()),
  /** The target as the user stated it, in words (e.g. "40 steps/s", "by 2026-11-25T18:00:00Z"). */
  target: opt(z.string()),
  /** Steps per second the target needs now, and the measured rate, as decimal strings. */
  requiredStepsPerSecond: opt(z.string()),
  measuredStepsPerSecond: opt(z.string()),
  /** Whether the target can still be met; false with the reason in `message`. */
  reachable: opt(z.boolean()),
  /** With targetMetric: whether the job's metric has reached it. */
  targetMetricReached: opt(z.boolean()),
  message: opt(z.string()),
  /**
   * `TargetReachable` (True/False, reason `Reachable`, `DeadlinePassed` or `TooSlowAtMaxWorkers`).
   * Here, not in `status.conditions`: tf-operator's State column and the Kubeflow SDK read the last
   * entry of those as the job's state.
   */
  conditions: opt(z.array(JobConditionSchema)),
});

export const VERTICAL_RESIZE_STATES = ['Requested', 'InProgress', 'Applied', 'Deferred', 'Infeasible', 'Failed'] as const;

/** Ours: one container whose CPU limit the vertical policy set (or tried to), and how it went. */
export const VerticalResizeContainerSchema = z.object({
  pod: z.string(),
  container: z.string(),
  /** The limit asked for, and the one before, as quantities (`1500m`). */
  cpuLimit: z.string(),
  previousCpuLimit: opt(z.string()),
  time: z.string(),
  reason: opt(z.string()),
  /** Requested (in the spec), InProgress, Applied (the kubelet reports it), Deferred, Infeasible, Failed (refused). */
  state: z.enum(VERTICAL_RESIZE_STATES),
  message: opt(z.string()),
});

/** Ours: what --vertical-policy did to the job's CPU limits (`status.verticalResize`). */
export const VerticalResizeStatusSchema = z.object({
  policy: z.string(),
  lastRound: opt(z.string()),
  /** FlowCon's list for the job (New, Watching, Completing) and its last growth efficiency. */
  list: opt(z.string()),
  growthEfficiency: opt(z.string()),
  /** Why the policy leaves the job alone, when it does. */
  leftAlone: opt(z.string()),
  containers: opt(z.array(VerticalResizeContainerSchema)),
});

/** Ours: workers --vertical-policy specon moved to another node (`status.migration`). */
export const MigrationStatusSchema = z.object({
  migrations: int32.min(0),
  last: opt(z.object({ pod: z.string(), from: z.string(), to: z.string(), time: z.string(), reason: opt(z.string()) })),
});

export const JobStatusSchema = z.looseObject({
  conditions: opt(z.array(JobConditionSchema)),
  replicaStatuses: opt(z.record(z.string(), ReplicaStatusSchema)),
  startTime: opt(z.string()),
  completionTime: opt(z.string()),
  lastReconcileTime: opt(z.string()),
  scheduling: opt(SchedulingStatusSchema),
  progress: opt(ProgressStatusSchema),
  qoe: opt(QoeStatusSchema),
  verticalResize: opt(VerticalResizeStatusSchema),
  migration: opt(MigrationStatusSchema),
  /** Ours: pods the operator deleted and recreated after they failed, per replica type (backoffLimit). */
  podRecreations: opt(z.record(z.string(), int32)),
  /** Ours: worker slots of an elastic job given up after their pod failed under restartPolicy Never. */
  givenUpWorkerSlots: opt(z.array(int32)),
});

export const ObjectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: opt(z.string()),
  uid: opt(z.string()),
  generation: opt(z.int()),
  resourceVersion: opt(z.string()),
  creationTimestamp: opt(z.union([z.string(), z.date()])),
  deletionTimestamp: opt(z.union([z.string(), z.date()])),
  labels: opt(z.record(z.string(), z.string())),
  annotations: opt(z.record(z.string(), z.string())),
});

export const TFJobSchema = z.looseObject({
  apiVersion: opt(z.string()),
  kind: opt(z.string()),
  metadata: ObjectMetaSchema,
  spec: opt(TFJobSpecSchema),
  status: opt(JobStatusSchema),
});

export type ReplicaSpec = z.infer<typeof ReplicaSpecSchema>;
export type SchedulingPolicy = z.infer<typeof SchedulingPolicySchema>;
export type RunPolicy = z.infer<typeof RunPolicySchema>;
export type ElasticPolicy = z.infer<typeof ElasticPolicySchema>;
export type TFJobSpec = z.infer<typeof TFJobSpecSchema>;
export type JobCondition = z.infer<typeof JobConditionSchema>;
export type ReplicaStatus = z.infer<typeof ReplicaStatusSchema>;
export type SchedulingStatus = z.infer<typeof SchedulingStatusSchema>;
export type ProgressStatus = z.infer<typeof ProgressStatusSchema>;
export type NotTraining = z.infer<typeof NotTrainingSchema>;
export type QoeSpec = z.infer<typeof QoeSpecSchema>;
export type QoeStatus = z.infer<typeof QoeStatusSchema>;
export type VerticalResizeStatus = z.infer<typeof VerticalResizeStatusSchema>;
export type MigrationStatus = z.infer<typeof MigrationStatusSchema>;
export type VerticalResizeContainer = z.infer<typeof VerticalResizeContainerSchema>;
export type JobStatus = z.infer<typeof JobStatusSchema>;
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;
export type TFJob = z.infer<typeof TFJobSchema>;
