// The passes that end a reconcile early (a job unparsable, finished or suspended) and the assembly of
// the plan every pass returns.

import type { DefaultedTFJob } from '../../api/v1/defaults.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import type { UnparsableTFJobEntry } from '../../api/v1/parse.ts';
import type { JobStatus, ReplicaStatus, SchedulingStatus } from '../../api/v1/schema.ts';
import { CLEAN_POD_POLICY_RUNNING } from '../../api/v1/policies.ts';
import { interruptedRemovals, selectForCleanup } from './cleanup.ts';
import { conditionFor } from './condition-constructors.ts';
import { ensureCreated, isFinished, isRunning, isSucceeded, isSuspended, setCondition } from './conditions.ts';
import type { JobEvent } from './events.ts';
import { EVENT_FAILED_VALIDATION, EVENT_SUSPENDED, messages, normal, warning } from './events.ts';
import { jsonEqual } from './json.ts';
import { podName } from './pod-state.ts';
import type { Action, DeleteReason, Outcome, ReconcileInput, ReconcilePlan, Working } from './plan-types.ts';
import { fromReplicaStatus, toReplicaStatus } from './replica-status.ts';
import { ttlDecision } from './time-limits.ts';
import { formatTime } from './time.ts';

export function result(
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
    if (working.givenUpWorkerSlots !== undefined) {
      if (working.givenUpWorkerSlots.length > 0) status.givenUpWorkerSlots = [...working.givenUpWorkerSlots];
      else delete status.givenUpWorkerSlots;
    }
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
export function unparsable(input: ReconcileInput, entry: UnparsableTFJobEntry): ReconcilePlan {
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
  byPhase = false,
): Action[] {
  const byName = new Map(pods.map((p) => [podName(p), p]));
  const serviceUids = new Map(services.map((s) => [s.metadata?.name ?? '', s.metadata?.uid]));
  const pod = (name: string) => byName.get(name)?.metadata;
  // Selected by phase: the delete must fail if the pod has changed since (a worker that just Succeeded).
  const version = (name: string) =>
    byPhase && pod(name)?.resourceVersion !== undefined ? { resourceVersion: pod(name)?.resourceVersion } : {};
  return [
    ...selection.pods.map((name): Action => ({ kind: 'deletePod', name, uid: pod(name)?.uid, reason, ...version(name) })),
    ...selection.services.map((name): Action => ({ kind: 'deleteService', name, uid: serviceUids.get(name) })),
  ];
}

/** Finished job: fold active into succeeded (success only), clean up per cleanPodPolicy, apply the TTL. */
export function finishedPass(
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
  const actions = cleanupActions(
    selectForCleanup(policy, true, pods, services),
    pods,
    'cleanup',
    services,
    policy === CLEAN_POD_POLICY_RUNNING,
  );
  actions.push(...interruptedRemovals(pods, events, actions));
  const ttl = ttlDecision(runPolicy.ttlSecondsAfterFinished, runPolicy.suspend === true, working.completionTime, now);
  if (ttl.kind === 'delete') actions.push({ kind: 'deleteJob' });
  return result(outcome, stored, working, actions, events, ttl.kind === 'requeue' ? ttl.afterMs : undefined, scheduling);
}

export function suspendPass(
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
