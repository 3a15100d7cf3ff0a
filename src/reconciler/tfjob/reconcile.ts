// One reconcile of one TFJob as a pure function: (job, its pods and services, now, scheduler input)
// → (status to write, actions to perform, events to record, when to come back). It follows
// tf-operator v1.8.1's ReconcileJobs step by step; every deliberate difference is listed in
// docs/differences-from-tf-operator.md. The caller owns I/O, expectations ("do not act again before
// the cache has seen my last creates/deletes") and the work queue.

import type { DefaultedTFJob } from '../../api/v1/defaults.ts';
import { aggregateFieldErrors } from '../../api/v1/field-error.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, REPLICA_TYPE_PS, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { JobCondition, JobStatus, NotTraining, ProgressStatus, TFJob } from '../../api/v1/schema.ts';
import { MANAGED_BY_TRAINING_OPERATOR } from '../../api/v1/validation.ts';
import { abnormalPodEvents } from './abnormal-pods.ts';
import { countRestarts, exceedsBackoffLimit, pastBackoffLimit } from './backoff.ts';
import { interruptedRemovals } from './cleanup.ts';
import { conditionFor } from './condition-constructors.ts';
import { ensureCreated, isFailed, isFinished, isRunning, isSuspended, setCondition } from './conditions.ts';
import type { JobEvent } from './events.ts';
import {
  EVENT_ELASTIC_WITHOUT_PS,
  EVENT_FAILED,
  EVENT_FAILED_VALIDATION,
  EVENT_NO_STATUS_DRIVER,
  EVENT_RESUMED,
  EVENT_TARGET_METRIC_REACHED,
  messages,
  normal,
  warning,
} from './events.ts';
import { givenUpSlotEvents, givenUpWorkerSlots, withoutGivenUpSlots } from './given-up-slots.ts';
import { isControlledBy } from './identity.ts';
import type { JobView } from './job-view.ts';
import { buildJobView } from './job-view.ts';
import { jsonEqual } from './json.ts';
import { declaredStyle, judgeTraining, type TrainingJudgement } from './not-training.ts';
import { finishedPass, result, suspendPass, unparsable } from './passes.ts';
import type { Action, ReconcileInput, ReconcilePlan, Working } from './plan-types.ts';
import { ofReplicaType } from './pod-state.ts';
import { reconcileReplicas } from './replica-pass.ts';
import { decideJobStatus, isWorker0Completed, isWorker0Failed } from './status-decision.ts';
import { pastActiveDeadline, untilActiveDeadline } from './time-limits.ts';
import { formatTime } from './time.ts';
import { waitingState } from './waiting.ts';

export type { Action, DeleteReason, Outcome, ReconcileInput, ReconcileOptions, ReconcilePlan, SchedulingInput } from './plan-types.ts';

function previouslyFailed(stored: JobStatus): number {
  return Object.values(stored.replicaStatuses ?? {}).reduce((sum, rs) => sum + (rs.failed ?? 0), 0);
}

/** A reconcile's plan and its NotTraining verdict, which goes into `status.progress`. */
type Once = ReconcilePlan & { readonly notTraining?: NotTraining };

export function reconcileTFJob(input: ReconcileInput): ReconcilePlan {
  const { notTraining, ...outcome } = reconcileOnce(input);
  const stored: JobStatus = { ...(input.job.status ?? {}) };
  if (input.options?.statusExtensions === false) {
    const status: JobStatus = { ...outcome.status };
    for (const s of [status, stored]) {
      delete s.scheduling;
      delete s.podRecreations;
      delete s.progress;
      delete s.qoe;
      delete s.givenUpWorkerSlots;
    }
    return { ...outcome, status, statusChanged: !jsonEqual(status, stored) };
  }
  if (outcome.outcome === 'skipped') return outcome;
  if (outcome.outcome === 'finished' || outcome.outcome === 'limit-exceeded') {
    // A finished job keeps its last progress, but is no longer said not to train.
    if (outcome.status.progress?.notTraining === undefined) return outcome;
    const status: JobStatus = { ...outcome.status, progress: withVerdict(outcome.status.progress, undefined) };
    if (status.progress === undefined) delete status.progress;
    return { ...outcome, status, statusChanged: !jsonEqual(status, stored) };
  }
  const status: JobStatus = { ...outcome.status };
  const progress = withVerdict(input.progress, notTraining);
  if (progress === undefined) delete status.progress;
  else status.progress = progress;
  if (input.qoe === undefined) delete status.qoe;
  else status.qoe = input.qoe;
  return { ...outcome, status, statusChanged: !jsonEqual(status, stored) };
}

/** `status.progress` with the verdict in it, or without one; undefined when nothing is left. */
function withVerdict(progress: ProgressStatus | undefined, verdict: NotTraining | undefined): ProgressStatus | undefined {
  const rest: ProgressStatus = { ...progress };
  delete rest.notTraining;
  if (verdict !== undefined) return { ...rest, notTraining: verdict };
  return Object.keys(rest).length === 0 ? undefined : rest;
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

function reconcileOnce(input: ReconcileInput): Once {
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
  const built = buildJobView(raw, job, {
    ...(input.options?.clusterDomain ? { clusterDomain: input.options.clusterDomain } : {}),
    ...(input.scheduling?.workers === undefined ? {} : { workers: input.scheduling.workers }),
    ...(input.options?.defaultElastic === undefined ? {} : { defaultElastic: input.options.defaultElastic }),
    ...(input.options?.workerLimit === undefined ? {} : { workerLimit: input.options.workerLimit }),
  });
  // Slots of failed workers given up under Never: the job's size in this pass is held below them.
  const givenUp = givenUpWorkerSlots(built, pods);
  const view = withoutGivenUpSlots(built, givenUp);
  const pass: ActivePass = { input, raw, job, view, stored, working, pods, services, events, givenUp };
  if (waiting) return waitingPass(pass);
  return endedPass(pass) ?? runningPass(pass);
}

/** What the passes of an unfinished, unsuspended job share. */
interface ActivePass {
  readonly input: ReconcileInput;
  readonly raw: TFJob;
  readonly job: DefaultedTFJob;
  readonly view: JobView;
  readonly stored: JobStatus;
  readonly working: Working;
  readonly pods: readonly Pod[];
  readonly services: readonly Service[];
  readonly events: JobEvent[];
  readonly givenUp: ReturnType<typeof givenUpWorkerSlots>;
}

/**
 * Not admitted by our queue: no pods (those it had and were marked for removal are deleted); services
 * at once and replicaStatuses per type, as under tf-operator.
 */
function waitingPass({ input, view, stored, working, pods, services, events }: ActivePass): ReconcilePlan {
  const name = view.name;
  // A job the scheduler suspended (ours: back in the queue, its pods deleted) no longer runs.
  if (isRunning(working.conditions)) working.conditions = setCondition(working.conditions, conditionFor.runningSuspended(name, input.now));
  const ahead = waitingState(view, services, working.replicaStatuses);
  working.replicaStatuses = ahead.replicaStatuses;
  const actions: Action[] = [
    ...ahead.services.map((service): Action => ({ kind: 'createService', service })),
    ...interruptedRemovals(pods, events),
  ];
  return result('waiting', stored, working, actions, events, undefined, input.scheduling?.status);
}

/** Past backoffLimit or activeDeadlineSeconds, or (ours) at its target metric: the job ends here. */
function endedPass({ input, job, view, stored, working, pods, services, events }: ActivePass): ReconcilePlan | undefined {
  const { now } = input;
  const scheduling = input.scheduling?.status;
  // Ours (as tf-operator v1.9.4): the Failed condition is set first, so the cleanup below honours
  // cleanPodPolicy instead of deleting everything.
  const limitCondition = limitReached(view, job.spec.runPolicy, pods, stored, working, now);
  if (limitCondition !== undefined) {
    working.completionTime ??= formatTime(now);
    events.push(normal(EVENT_FAILED, limitCondition.message ?? ''));
    working.conditions = setCondition(working.conditions, limitCondition);
    return finishedPass(job, stored, working, pods, services, events, now, 'limit-exceeded', scheduling);
  }
  if (input.stopAtTarget === undefined) return undefined;
  // Ours (spec.qoe.onTargetMetric: Stop): good enough is done. Succeeded, so cleanPodPolicy applies.
  const name = view.name;
  working.completionTime ??= formatTime(now);
  working.conditions = setCondition(working.conditions, conditionFor.succeededAtTarget(view.namespace, name, input.stopAtTarget, now));
  events.push(normal(EVENT_TARGET_METRIC_REACHED, messages.targetMetricReached(view.namespace, name, input.stopAtTarget)));
  return finishedPass(job, stored, working, pods, services, events, now, 'finished', scheduling);
}

/** The replicas reconciled, the job's status decided from them, and when to come back. */
function runningPass({ input, raw, job, view, stored, working, pods, services, events, givenUp }: ActivePass): Once {
  const { now } = input;
  events.push(...abnormalPodEvents(pods));
  events.push(...givenUpSlotEvents(view, pods, givenUp, stored.givenUpWorkerSlots));
  working.givenUpWorkerSlots = givenUp;
  const { actions, counts, conditions } = reconcileReplicas(view, pods, services, working, events, input);
  events.push(...creationWarnings(view, pods, actions));

  const workerPods = ofReplicaType(pods, REPLICA_TYPE_WORKER);
  const decision = decideJobStatus({
    name: view.name,
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
  const runPolicy = job.spec.runPolicy;
  const requeueAfterMs = isFinished(working.conditions) ? 0 : untilActiveDeadline(runPolicy.activeDeadlineSeconds, working.startTime, now);
  const training = trainingJudgement(input, raw, view, pods, working);
  events.push(...training.events);
  const requeue = earliest(requeueAfterMs, training.recheckAfterMs);
  const plan = result('reconciled', stored, working, actions, events, requeue, input.scheduling?.status);
  return training.verdict === undefined ? plan : { ...plan, notTraining: training.verdict };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/** NotTraining for a Running job, when the operator judges it (--not-training-after, our status fields). */
function trainingJudgement(input: ReconcileInput, raw: TFJob, view: JobView, pods: readonly Pod[], working: Working): TrainingJudgement {
  const thresholdMs = input.options?.notTrainingAfterMs ?? 0;
  if (thresholdMs <= 0 || input.options?.statusExtensions === false) return { events: [] };
  if (!isRunning(working.conditions) || isFinished(working.conditions)) return { events: [] };
  return judgeTraining({
    now: input.now.getTime(),
    thresholdMs,
    pods,
    style: declaredStyle(raw),
    workerSlots: view.elastic?.max ?? view.replicas[REPLICA_TYPE_WORKER] ?? 0,
    lastProgressAt: input.lastProgressAt,
    previous: raw.status?.progress?.notTraining,
  });
}
