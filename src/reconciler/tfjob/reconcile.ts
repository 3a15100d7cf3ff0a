// One reconcile of one TFJob as a pure function: (job, its pods and services, now, scheduler input)
// → (status to write, actions to perform, events to record, when to come back). It follows
// tf-operator v1.8.1's ReconcileJobs step by step; every deliberate difference is listed in
// docs/differences-from-tf-operator.md. The caller owns I/O, expectations ("do not act again before
// the cache has seen my last creates/deletes") and the work queue.

import { REMOVAL_SCALE_IN } from '../../api/v1/constants.ts';
import type { DefaultedTFJob } from '../../api/v1/defaults.ts';
import { aggregateFieldErrors } from '../../api/v1/field-error.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import type { TFJobEntry, UnparsableTFJobEntry } from '../../api/v1/parse.ts';
import { REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, REPLICA_TYPE_PS, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { JobCondition, JobStatus, ProgressStatus, QoeStatus, ReplicaStatus, SchedulingStatus, TFJob } from '../../api/v1/schema.ts';
import { MANAGED_BY_TRAINING_OPERATOR } from '../../api/v1/validation.ts';
import { abnormalPodEvents } from './abnormal-pods.ts';
import { countRestarts, exceedsBackoffLimit, pastBackoffLimit } from './backoff.ts';
import { selectForCleanup } from './cleanup.ts';
import { conditionFor } from './condition-constructors.ts';
import { ensureCreated, isFailed, isFinished, isRunning, isSucceeded, isSuspended, setCondition } from './conditions.ts';
import { pastActiveDeadline, untilActiveDeadline, ttlDecision } from './time-limits.ts';
import type { JobEvent } from './events.ts';
import {
  EVENT_EXITED_WITH_CODE,
  EVENT_FAILED,
  EVENT_FAILED_VALIDATION,
  EVENT_NO_STATUS_DRIVER,
  EVENT_ELASTIC_WITHOUT_PS,
  EVENT_RESTARTING,
  EVENT_RESUMED,
  EVENT_SUSPENDED,
  EVENT_TARGET_METRIC_REACHED,
  messages,
  normal,
  warning,
} from './events.ts';
import { UNKNOWN_EXIT_CODE, decideFailedPod } from './restart.ts';
import type { JobView } from './job-view.ts';
import { buildJobView, tfConfigFor, type ElasticOptions } from './job-view.ts';
import { jsonEqual } from './json.ts';
import { isControlledBy, replicaName } from './identity.ts';
import type { Placement } from './pod-builder.ts';
import { buildPod } from './pod-builder.ts';
import {
  PHASE_FAILED,
  isRemovedByOperator,
  isTerminating,
  ofReplicaType,
  podName,
  hasTerminatedTensorflow,
  podPhase,
  replicaIndex,
  tensorflowExitCode,
} from './pod-state.ts';
import type { PodPlan } from './replica-plan.ts';
import { planElasticPods, planFixedPods, planServices, scalingIn } from './replica-plan.ts';
import type { ReplicaCounts } from './replica-status.ts';
import { addCounts, fromReplicaStatus, podContribution, toReplicaStatus, ZERO_COUNTS } from './replica-status.ts';
import { buildService } from './service-builder.ts';
import { decideJobStatus, isWorker0Completed, isWorker0Failed } from './status-decision.ts';
import { formatTime } from './time.ts';
import { waitingState } from './waiting.ts';

/** Why a pod is deleted; `scale-in` pods must get the removal annotation before the delete. */
export type DeleteReason = 'restart' | 'scale-down' | 'scale-in' | 'cleanup' | 'suspend';

export type Action =
  | { readonly kind: 'createPod'; readonly pod: Pod }
  /**
   * `uid` is the UID of the pod the decision was about: the delete carries it as a precondition, so
   * a pod of the same name created since (a replacement) is never deleted by a stale decision.
   */
  | {
      readonly kind: 'deletePod';
      readonly name: string;
      readonly uid: string | undefined;
      readonly reason: DeleteReason;
      readonly markRemoval?: string;
    }
  | { readonly kind: 'createService'; readonly service: Service }
  /** `uid`: the service the decision was about (a precondition, as for pods). */
  | { readonly kind: 'deleteService'; readonly name: string; readonly uid: string | undefined }
  /** TTL expired: delete the TFJob (pods and services go with it through garbage collection). */
  | { readonly kind: 'deleteJob' };

/** Input from our scheduling core; absent = behave like tf-operator (create everything now). */
export interface SchedulingInput {
  /** False while the job waits in the queue: no pods are created and startTime is not set. */
  readonly admitted: boolean;
  /** Worker count for an elastic job in this pass (clamped to its bounds); ignored for fixed-size jobs. */
  readonly workers?: number;
  /** Node per pod name, for pods created in this pass. */
  readonly placements?: Readonly<Record<string, Placement>>;
  /**
   * Nodes for elastic Worker pods created in this pass that have no entry in `placements`, used in
   * index order. The scheduler decides *where* new workers go; which free index each one takes is
   * the reconciler's business (lowest free), so the two never have to agree on indices.
   */
  readonly workerNodes?: readonly string[];
  /** `placedBy` recorded on pods placed from `workerNodes`. */
  readonly placedBy?: string;
  /**
   * The operator places every pod itself: a pod with no placement is not created in this pass (it
   * waits for the scheduler) instead of falling to the default scheduler.
   */
  readonly requirePlacement?: boolean;
  /**
   * The pods are left to the schedulers their templates name: a template's `nodeName` is dropped so
   * that scheduler decides (with our scheduler a user picks a scheduler, never a node).
   */
  readonly unpinned?: boolean;
  /** Written to `status.scheduling` as is. */
  readonly status?: SchedulingStatus;
}

export interface ReconcileOptions extends ElasticOptions {
  /** The operator's CUSTOM_CLUSTER_DOMAIN. */
  readonly clusterDomain?: string;
  /** Also emit pre-v1.6 labels (group-name, job-name, ...) on pods. */
  readonly legacyLabels?: boolean;
  /**
   * False on clusters running the upstream CRD, which prunes `status.scheduling` and
   * `status.podRecreations`: they are then left out of the status, otherwise every write would differ
   * from what is stored and trigger another reconcile. Default true.
   */
  readonly statusExtensions?: boolean;
}

export interface ReconcileInput {
  /** The TFJob as the cache holds it: parsed, validated and defaulted once (toTFJobEntry). */
  readonly job: TFJobEntry;
  /** Pods carrying the job's labels; only those the job controls (by UID) are used. */
  readonly pods: readonly Pod[];
  readonly services: readonly Service[];
  readonly now: Date;
  readonly scheduling?: SchedulingInput;
  /**
   * The job's training progress read from its log (`status.progress`), when the operator follows
   * progress. Undefined while unfinished: no (or a stale) signal, and the field is removed; a finished
   * job keeps the last one written.
   */
  readonly progress?: ProgressStatus;
  /** The job against its performance target (`status.qoe`); undefined while unfinished removes the field. */
  readonly qoe?: QoeStatus;
  /**
   * The job's metric reached its `spec.qoe.targetMetric` and it asked to stop then
   * (`onTargetMetric: Stop`): what the metric reads, in words. The job ends Succeeded.
   */
  readonly stopAtTarget?: string;
  readonly options?: ReconcileOptions;
}

export type Outcome =
  /** Nothing to do: being deleted, managed by another controller, or not even a named object. */
  | 'skipped'
  | 'finished'
  | 'suspended'
  /** Waiting in our queue. */
  | 'waiting'
  /** Failed in this pass by backoffLimit or activeDeadlineSeconds. */
  | 'limit-exceeded'
  | 'reconciled';

/**
 * What one reconcile of a TFJob decided, for the caller to carry out: the status to write, the
 * actions and events. (The generic controller's `ReconcileResult` is what the caller then returns:
 * whether and when to come back.)
 */
export interface ReconcilePlan {
  readonly outcome: Outcome;
  /** The complete status to write (status subresource). Do not write it after a deleteJob action. */
  readonly status: JobStatus;
  /** False when `status` equals what is stored: skip the write (each write triggers a reconcile). */
  readonly statusChanged: boolean;
  /** In order: pod/service deletions and creations, then a possible job deletion. */
  readonly actions: readonly Action[];
  readonly events: readonly JobEvent[];
  /** Reconcile again after this many ms even without an event (TTL, activeDeadlineSeconds). */
  readonly requeueAfterMs?: number;
}

interface Working {
  conditions: readonly JobCondition[];
  replicaStatuses: Record<string, ReplicaStatus>;
  startTime?: string;
  completionTime?: string;
  podRecreations: Record<string, number>;
}

function result(
  outcome: Outcome,
  stored: JobStatus,
  working: Working | undefined,
  actions: readonly Action[],
  events: readonly JobEvent[],
  requeueAfterMs?: number,
  scheduling?: SchedulingStatus,
): ReconcilePlan {
  const status: JobStatus = { ...stored };
  if (working) {
    status.conditions = [...working.conditions];
    if (Object.keys(working.replicaStatuses).length > 0) status.replicaStatuses = working.replicaStatuses;
    else delete status.replicaStatuses;
    if (working.startTime === undefined) delete status.startTime;
    else status.startTime = working.startTime;
    if (working.completionTime === undefined) delete status.completionTime;
    else status.completionTime = working.completionTime;
    if (Object.keys(working.podRecreations).length > 0) status.podRecreations = working.podRecreations;
    else delete status.podRecreations;
  }
  if (scheduling) status.scheduling = scheduling;
  const cleaned = Object.fromEntries(Object.entries(status).filter(([, v]) => v !== undefined)) as JobStatus;
  return {
    outcome,
    status: cleaned,
    statusChanged: !jsonEqual(cleaned, stored),
    actions,
    events,
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}

/** Fails a job whose object does not even have the shape of a TFJob (only possible without our CRD). */
function unparsable(input: ReconcileInput, entry: UnparsableTFJobEntry): ReconcilePlan {
  const { message } = entry;
  // An object read as JSON: the name may be anything, and a job without one is skipped.
  const name: unknown = entry.metadata?.name;
  const stored = entry.status;
  if (typeof name !== 'string') return result('skipped', stored, undefined, [], []);
  const text = messages.failedValidation(message);
  let conditions = ensureCreated(stored.conditions ?? [], conditionFor.created(name, input.now));
  const events: JobEvent[] = [];
  if (!isFinished(conditions)) {
    conditions = setCondition(conditions, conditionFor.failedValidation(message, input.now));
    events.push(warning(EVENT_FAILED_VALIDATION, text));
  }
  const working: Working = {
    conditions,
    replicaStatuses: { ...(stored.replicaStatuses ?? {}) },
    ...(stored.startTime ? { startTime: stored.startTime } : {}),
    completionTime: stored.completionTime ?? formatTime(input.now),
    podRecreations: { ...(stored.podRecreations ?? {}) },
  };
  return result('finished', stored, working, [], events);
}

function cleanupActions(
  selection: { pods: readonly string[]; services: readonly string[] },
  pods: readonly Pod[],
  reason: DeleteReason,
  services: readonly Service[],
): Action[] {
  const uids = new Map(pods.map((p) => [podName(p), p.metadata?.uid]));
  const serviceUids = new Map(services.map((s) => [s.metadata?.name ?? '', s.metadata?.uid]));
  return [
    ...selection.pods.map((name): Action => ({ kind: 'deletePod', name, uid: uids.get(name), reason })),
    ...selection.services.map((name): Action => ({ kind: 'deleteService', name, uid: serviceUids.get(name) })),
  ];
}

/** Finished job: fold active into succeeded (success only), clean up per cleanPodPolicy, apply the TTL. */
function finishedPass(
  job: DefaultedTFJob,
  stored: JobStatus,
  working: Working,
  pods: readonly Pod[],
  services: readonly Service[],
  events: JobEvent[],
  now: Date,
  outcome: Outcome = 'finished',
  scheduling?: SchedulingStatus,
): ReconcilePlan {
  if (isSucceeded(working.conditions)) {
    for (const [type, rs] of Object.entries(working.replicaStatuses)) {
      const counts = fromReplicaStatus(rs);
      const rest: ReplicaStatus = { ...rs };
      delete rest.active;
      delete rest.succeeded;
      delete rest.failed;
      working.replicaStatuses[type] = {
        ...rest,
        ...toReplicaStatus({ active: 0, succeeded: counts.succeeded + counts.active, failed: counts.failed }),
      };
    }
  }
  // Ours: a finished job always has a completionTime (tf-operator could leave it unset and then
  // failed every TTL check with "job completion time is nil").
  working.completionTime ??= formatTime(now);
  const runPolicy = job.spec.runPolicy;
  // Ours: a job that asked to stop at its metric target (spec.qoe.onTargetMetric: Stop) must not
  // keep training after it is marked done, so None cleans up running pods there as Running does.
  const stops = job.spec.qoe?.onTargetMetric === 'Stop' && runPolicy.cleanPodPolicy === 'None';
  const policy = stops ? 'Running' : runPolicy.cleanPodPolicy;
  const actions = cleanupActions(selectForCleanup(policy, true, pods, services), pods, 'cleanup', services);
  const ttl = ttlDecision(runPolicy.ttlSecondsAfterFinished, runPolicy.suspend === true, working.completionTime, now);
  if (ttl.kind === 'delete') actions.push({ kind: 'deleteJob' });
  return result(outcome, stored, working, actions, events, ttl.kind === 'requeue' ? ttl.afterMs : undefined, scheduling);
}

function suspendPass(
  job: DefaultedTFJob,
  stored: JobStatus,
  working: Working,
  pods: readonly Pod[],
  services: readonly Service[],
  events: JobEvent[],
  now: Date,
  scheduling?: SchedulingStatus,
): ReconcilePlan {
  const name = job.metadata.name;
  const actions = cleanupActions(selectForCleanup(job.spec.runPolicy.cleanPodPolicy, false, pods, services), pods, 'suspend', services);
  for (const [type, rs] of Object.entries(working.replicaStatuses)) {
    const copy = { ...rs };
    delete copy.active;
    working.replicaStatuses[type] = copy;
  }
  const message = messages.suspended(name);
  if (isRunning(working.conditions)) {
    working.conditions = setCondition(working.conditions, conditionFor.runningSuspended(name, now));
  }
  if (!isSuspended(working.conditions)) {
    working.conditions = setCondition(working.conditions, conditionFor.suspended(name, now));
  }
  events.push(normal(EVENT_SUSPENDED, message));
  return result('suspended', stored, working, actions, events, undefined, scheduling);
}

interface TypePass {
  readonly actions: Action[];
  readonly events: JobEvent[];
  counts: ReplicaCounts;
  conditions: readonly JobCondition[];
  recreated: number;
}

/** ReconcilePods + ReconcileServices for one replica type. */
function reconcileReplicaType(
  view: JobView,
  type: string,
  pods: readonly Pod[],
  services: readonly Service[],
  conditions: readonly JobCondition[],
  input: ReconcileInput,
): TypePass {
  const spec = view.replicaSpecs[type]!;
  const replicas = view.replicas[type] ?? spec.replicas;
  const elastic = type === REPLICA_TYPE_WORKER && view.elastic !== undefined;
  const typePods = ofReplicaType(pods, type);
  const plan: PodPlan = elastic ? planElasticPods(typePods, replicas) : planFixedPods(typePods, replicas);
  const pass: TypePass = { actions: [], events: [], counts: ZERO_COUNTS, conditions, recreated: 0 };
  const deleted = new Set<string>();

  const workerNodes = elastic ? [...(input.scheduling?.workerNodes ?? [])] : [];
  const wantedIndices = new Set(plan.wanted);
  for (const index of plan.create) {
    const tfConfig = tfConfigFor(view, type, index);
    let placement = input.scheduling?.placements?.[replicaName(view.name, type, index)];
    if (placement === undefined && workerNodes.length > 0) {
      placement = { nodeName: workerNodes.shift()!, placedBy: input.scheduling?.placedBy ?? 'scheduler' };
    }
    if (placement === undefined && input.scheduling?.requirePlacement === true) {
      // Not created in this pass (no node yet): no service for it either.
      wantedIndices.delete(index);
      continue;
    }
    const built = buildPod(view, view.types, type, index, spec, {
      ...(tfConfig === undefined ? {} : { tfConfig }),
      ...(placement ? { placement } : {}),
      ...(input.scheduling?.unpinned === true ? { unpinned: true } : {}),
      ...(input.options?.legacyLabels ? { legacyLabels: true } : {}),
    });
    pass.actions.push({ kind: 'createPod', pod: built.pod });
    pass.events.push(...built.events);
  }
  for (const pod of plan.remove) {
    const name = podName(pod);
    if (isTerminating(pod)) continue;
    deleted.add(name);
    pass.actions.push(
      elastic
        ? { kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-in', markRemoval: REMOVAL_SCALE_IN }
        : { kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-down' },
    );
  }
  // A removal interrupted between its mark and its delete (the delete failed, or the operator
  // restarted in between) is completed here: a marked pod is no longer a replica, nothing else would
  // ever delete it, and a job that preempted it would wait for its capacity forever.
  for (const pod of typePods) {
    const name = podName(pod);
    if (!isRemovedByOperator(pod) || isTerminating(pod) || deleted.has(name)) continue;
    deleted.add(name);
    pass.actions.push({ kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-in' });
  }

  const duplicated = new Set(plan.duplicated);
  for (const pod of typePods) {
    const index = replicaIndex(pod);
    if (index === undefined || duplicated.has(index)) continue;
    const exitCode = tensorflowExitCode(pod, UNKNOWN_EXIT_CODE);
    // Emitted on every reconcile while the pod exists, as tf-operator does.
    if (hasTerminatedTensorflow(pod)) {
      pass.events.push(normal(EVENT_EXITED_WITH_CODE, messages.exitedWithCode(view.namespace, podName(pod), exitCode)));
    }
    if (podPhase(pod) === PHASE_FAILED && !isRemovedByOperator(pod)) {
      const decision = decideFailedPod(spec.restartPolicy, exitCode);
      if (decision === 'restart') {
        const name = podName(pod);
        if (!isTerminating(pod) && !deleted.has(name)) {
          deleted.add(name);
          pass.actions.push({ kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'restart' });
          pass.recreated += 1;
        }
        const message = messages.restarting(view.name, type);
        pass.events.push(warning(EVENT_RESTARTING, message));
        pass.conditions = setCondition(pass.conditions, conditionFor.restarting(view.name, type, input.now));
      } else if (decision === 'fail') {
        const message = messages.failingExitCode(view.name, type);
        pass.events.push(warning(EVENT_FAILED, message));
        pass.conditions = setCondition(pass.conditions, conditionFor.failedExitCode(view.name, type, input.now));
      }
    }
    pass.counts = addCounts(pass.counts, podContribution(pod, spec.restartPolicy));
  }

  // Services are created only for replicas created now (none for a pod still waiting for a node),
  // but a replica waiting for a node keeps the service it has (e.g. a pod deleted by hand or lost
  // with its node, being replaced): only indices the job no longer wants lose theirs.
  const typeServices = ofReplicaType(services, type);
  const servicePlan = { create: planServices(typeServices, wantedIndices).create, remove: planServices(typeServices, plan.wanted).remove };
  for (const index of servicePlan.create) {
    pass.actions.push({ kind: 'createService', service: buildService(view, type, index, spec) });
  }
  for (const service of servicePlan.remove) {
    const name = service.metadata?.name ?? '';
    if (elastic && scalingIn(plan, name)) continue; // its service goes once the removal is in the API
    pass.actions.push({ kind: 'deleteService', name, uid: service.metadata?.uid });
  }
  return pass;
}

function previouslyFailed(stored: JobStatus): number {
  return Object.values(stored.replicaStatuses ?? {}).reduce((sum, rs) => sum + (rs.failed ?? 0), 0);
}

export function reconcileTFJob(input: ReconcileInput): ReconcilePlan {
  const outcome = reconcileOnce(input);
  const stored: JobStatus = { ...(input.job.status ?? {}) };
  if (input.options?.statusExtensions === false) {
    const status: JobStatus = { ...outcome.status };
    for (const s of [status, stored]) {
      delete s.scheduling;
      delete s.podRecreations;
      delete s.progress;
      delete s.qoe;
    }
    return { ...outcome, status, statusChanged: !jsonEqual(status, stored) };
  }
  if (outcome.outcome === 'skipped' || outcome.outcome === 'finished' || outcome.outcome === 'limit-exceeded') return outcome;
  const status: JobStatus = { ...outcome.status };
  if (input.progress === undefined) delete status.progress;
  else status.progress = input.progress;
  if (input.qoe === undefined) delete status.qoe;
  else status.qoe = input.qoe;
  return { ...outcome, status, statusChanged: !jsonEqual(status, stored) };
}

/** backoffLimit, then activeDeadlineSeconds: the Failed condition a job past either limit gets. */
function limitReached(
  view: JobView,
  runPolicy: DefaultedTFJob['spec']['runPolicy'],
  pods: readonly Pod[],
  stored: JobStatus,
  working: Working,
  now: Date,
): JobCondition | undefined {
  const totalReplicas = Object.values(view.replicas).reduce((a, b) => a + b, 0);
  const restarts = countRestarts(view.replicaSpecs, pods, working.podRecreations);
  if (
    pastBackoffLimit(runPolicy.backoffLimit, restarts) ||
    exceedsBackoffLimit(runPolicy.backoffLimit, pods, previouslyFailed(stored), totalReplicas)
  ) {
    return conditionFor.failedBackoffLimit(view.name, now);
  }
  if (pastActiveDeadline(runPolicy.activeDeadlineSeconds, working.startTime, now)) return conditionFor.failedActiveDeadline(view.name, now);
  return undefined;
}

/**
 * Every replica type's pass, in order (each sees the conditions the previous one left): their
 * actions and counts; replica statuses and recreations go into `working`, events into `events`.
 */
function reconcileReplicas(
  view: JobView,
  pods: readonly Pod[],
  services: readonly Service[],
  working: Working,
  events: JobEvent[],
  input: ReconcileInput,
): { actions: Action[]; counts: Record<string, ReplicaCounts>; conditions: readonly JobCondition[] } {
  const actions: Action[] = [];
  const counts: Record<string, ReplicaCounts> = {};
  let conditions: readonly JobCondition[] = working.conditions;
  for (const type of view.types) {
    const pass = reconcileReplicaType(view, type, pods, services, conditions, input);
    conditions = pass.conditions;
    actions.push(...pass.actions);
    events.push(...pass.events);
    counts[type] = pass.counts;
    working.replicaStatuses[type] = toReplicaStatus(pass.counts);
    if (pass.recreated > 0) working.podRecreations[type] = (working.podRecreations[type] ?? 0) + pass.recreated;
  }
  return { actions, counts, conditions };
}

/** Warnings about a job's shape, said when its pods are created. */
function creationWarnings(view: JobView, pods: readonly Pod[], actions: readonly Action[]): JobEvent[] {
  const events: JobEvent[] = [];
  const creates = actions.some((a) => a.kind === 'createPod');
  // Only Chief/Master or Worker replicas drive Running and Succeeded (tf-operator's UpdateJobStatus), so
  // a PS/Evaluator-only job runs forever in Created. Kept for compatibility, but said whenever its pods
  // are created, so its owner is not left guessing.
  const drivers = [REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, REPLICA_TYPE_WORKER];
  if (!view.types.some((t) => drivers.includes(t)) && creates) {
    events.push(warning(EVENT_NO_STATUS_DRIVER, messages.noStatusDriver(view.namespace, view.name, view.types)));
  }
  // Workers that may be resized but have no PS to hold the model are all-reduce (they cannot survive a
  // resize: docs/elastic-contract.md) or independent; admission cannot tell which, so it is said once,
  // when the job's first pods are created.
  if (
    view.elastic !== undefined &&
    view.elastic.min < view.elastic.max &&
    !view.types.includes(REPLICA_TYPE_PS) &&
    pods.length === 0 &&
    creates
  ) {
    events.push(warning(EVENT_ELASTIC_WITHOUT_PS, messages.elasticWithoutPs(view.namespace, view.name, view.elastic)));
  }
  return events;
}

function reconcileOnce(input: ReconcileInput): ReconcilePlan {
  const { now } = input;
  const entry = input.job;
  if (!entry.ok) return unparsable(input, entry);
  const raw: TFJob = entry.job;
  const stored: JobStatus = raw.status ?? {};
  const scheduling = input.scheduling?.status;
  if (raw.metadata.deletionTimestamp !== undefined) return result('skipped', stored, undefined, [], []);
  const managedBy = raw.spec?.runPolicy?.managedBy;
  if (managedBy !== undefined && managedBy !== MANAGED_BY_TRAINING_OPERATOR) return result('skipped', stored, undefined, [], []);

  const name = raw.metadata.name;
  const events: JobEvent[] = [];
  const working: Working = {
    conditions: ensureCreated(stored.conditions ?? [], conditionFor.created(name, now)),
    replicaStatuses: { ...(stored.replicaStatuses ?? {}) },
    ...(stored.startTime ? { startTime: stored.startTime } : {}),
    ...(stored.completionTime ? { completionTime: stored.completionTime } : {}),
    podRecreations: { ...(stored.podRecreations ?? {}) },
  };
  const uid = raw.metadata.uid;
  const pods = uid ? input.pods.filter((p) => isControlledBy(p, uid)) : [...input.pods];
  const services = uid ? input.services.filter((s) => isControlledBy(s, uid)) : [...input.services];

  const errors = entry.errors;
  if (errors.length > 0 && !isFinished(working.conditions)) {
    const message = messages.failedValidation(aggregateFieldErrors(errors));
    working.conditions = setCondition(working.conditions, conditionFor.failedValidation(aggregateFieldErrors(errors), now));
    events.push(warning(EVENT_FAILED_VALIDATION, message));
  }
  const job = entry.defaulted;
  if (isFinished(working.conditions)) return finishedPass(job, stored, working, pods, services, events, now, 'finished', scheduling);
  if (job.spec.runPolicy.suspend === true) return suspendPass(job, stored, working, pods, services, events, now, scheduling);

  const waiting = input.scheduling !== undefined && !input.scheduling.admitted;
  if (isSuspended(working.conditions)) {
    const message = messages.resumed(name);
    working.conditions = setCondition(working.conditions, conditionFor.resumed(name, now));
    // Suspended time does not count toward activeDeadlineSeconds; with our queue the clock starts at admission.
    if (waiting) delete working.startTime;
    else working.startTime = formatTime(now);
    events.push(normal(EVENT_RESUMED, message));
  }
  const view = buildJobView(raw, job, {
    ...(input.options?.clusterDomain ? { clusterDomain: input.options.clusterDomain } : {}),
    ...(input.scheduling?.workers === undefined ? {} : { workers: input.scheduling.workers }),
    ...(input.options?.defaultElastic === undefined ? {} : { defaultElastic: input.options.defaultElastic }),
    ...(input.options?.workerLimit === undefined ? {} : { workerLimit: input.options.workerLimit }),
  });
  if (waiting) {
    // A job the scheduler suspended (ours: back in the queue, its pods deleted) no longer runs.
    if (isRunning(working.conditions)) working.conditions = setCondition(working.conditions, conditionFor.runningSuspended(name, now));
    // As under tf-operator: services at once, replicaStatuses per type; pods come with admission.
    const ahead = waitingState(view, services, working.replicaStatuses);
    working.replicaStatuses = ahead.replicaStatuses;
    const actions: Action[] = ahead.services.map((service) => ({ kind: 'createService', service }));
    return result('waiting', stored, working, actions, events, undefined, scheduling);
  }
  const runPolicy = job.spec.runPolicy;

  // Ours (as tf-operator v1.9.4): the Failed condition is set first, so the cleanup below honours
  // cleanPodPolicy instead of deleting everything.
  const limitCondition = limitReached(view, runPolicy, pods, stored, working, now);
  if (limitCondition !== undefined) {
    working.completionTime ??= formatTime(now);
    events.push(normal(EVENT_FAILED, limitCondition.message ?? ''));
    working.conditions = setCondition(working.conditions, limitCondition);
    return finishedPass(job, stored, working, pods, services, events, now, 'limit-exceeded', scheduling);
  }

  if (input.stopAtTarget !== undefined) {
    // Ours (spec.qoe.onTargetMetric: Stop): good enough is done. Succeeded, so cleanPodPolicy applies.
    working.completionTime ??= formatTime(now);
    working.conditions = setCondition(working.conditions, conditionFor.succeededAtTarget(view.namespace, name, input.stopAtTarget, now));
    events.push(normal(EVENT_TARGET_METRIC_REACHED, messages.targetMetricReached(view.namespace, name, input.stopAtTarget)));
    return finishedPass(job, stored, working, pods, services, events, now, 'finished', scheduling);
  }

  events.push(...abnormalPodEvents(pods));
  const { actions, counts, conditions } = reconcileReplicas(view, pods, services, working, events, input);
  events.push(...creationWarnings(view, pods, actions));

  const workerPods = ofReplicaType(pods, REPLICA_TYPE_WORKER);
  const decision = decideJobStatus({
    name,
    namespace: view.namespace,
    replicas: view.replicas,
    counts,
    successPolicy: job.spec.successPolicy,
    tolerateWorkerFailures: view.tolerateWorkerFailures,
    worker0FailureFailsJob: view.worker0FailureFailsJob,
    worker0Completed: isWorker0Completed(view.replicaSpecs[REPLICA_TYPE_WORKER] !== undefined, workerPods),
    worker0Failed: isWorker0Failed(workerPods),
    conditions,
    ...(working.startTime ? { startTime: working.startTime } : {}),
    ...(working.completionTime ? { completionTime: working.completionTime } : {}),
    now,
  });
  working.conditions = decision.conditions;
  working.startTime = decision.startTime;
  if (decision.completionTime !== undefined) working.completionTime = decision.completionTime;
  if (isFailed(working.conditions)) working.completionTime ??= formatTime(now);
  events.push(...decision.events);

  // Finished in this pass: come back at once for the cleanup (tf-operator relied on its own status
  // write to trigger that pass). Otherwise come back at the active deadline (issue #3358).
  const requeueAfterMs = isFinished(working.conditions) ? 0 : untilActiveDeadline(runPolicy.activeDeadlineSeconds, working.startTime, now);
  return result('reconciled', stored, working, actions, events, requeueAfterMs, scheduling);
}
