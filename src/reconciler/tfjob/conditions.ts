// tf-operator's condition-list algorithm (pkg/util/status.go), exactly: clients read
// `status.conditions[-1]` (kubectl's State column, Kubeflow Pipelines' completion check), so the
// order of the list is part of the API.

import type { ConditionStatus, ConditionType } from '../../api/v1/conditions.ts';
import {
  CONDITION_CREATED,
  CONDITION_FAILED,
  CONDITION_FALSE,
  CONDITION_RESTARTING,
  CONDITION_RUNNING,
  CONDITION_SUCCEEDED,
  CONDITION_SUSPENDED,
  CONDITION_TRUE,
} from '../../api/v1/conditions.ts';
import type { JobCondition } from '../../api/v1/schema.ts';
import { formatTime } from './time.ts';

export function newCondition(type: ConditionType, status: ConditionStatus, reason: string, message: string, now: Date): JobCondition {
  const at = formatTime(now);
  return { type, status, reason, message, lastUpdateTime: at, lastTransitionTime: at };
}

export function findCondition(conditions: readonly JobCondition[], type: string): JobCondition | undefined {
  return conditions.find((c) => c.type === type);
}

/** A condition of this type with status True. */
export function hasCondition(conditions: readonly JobCondition[], type: string): boolean {
  return conditions.some((c) => c.type === type && c.status === CONDITION_TRUE);
}

export const isSucceeded = (conditions: readonly JobCondition[]): boolean => hasCondition(conditions, CONDITION_SUCCEEDED);
export const isFailed = (conditions: readonly JobCondition[]): boolean => hasCondition(conditions, CONDITION_FAILED);
export const isRunning = (conditions: readonly JobCondition[]): boolean => hasCondition(conditions, CONDITION_RUNNING);
export const isSuspended = (conditions: readonly JobCondition[]): boolean => hasCondition(conditions, CONDITION_SUSPENDED);
export const isFinished = (conditions: readonly JobCondition[]): boolean => isSucceeded(conditions) || isFailed(conditions);

function dropOnSet(newType: string, existing: JobCondition): boolean {
  if (newType === CONDITION_RESTARTING && existing.type === CONDITION_RUNNING) return true;
  if (newType === CONDITION_RUNNING && existing.type === CONDITION_RESTARTING) return true;
  return existing.type === newType;
}

/**
 * `setCondition` + `filterOutCondition`. Returns the input array itself when nothing changes:
 * - once Failed is True nothing changes any more;
 * - same type with the same status and reason is a no-op (message and timestamps are kept);
 * - the same status keeps the old lastTransitionTime;
 * - Running and Restarting replace each other; Succeeded/Failed turn Running to False;
 * - the new condition always goes to the end.
 */
export function setCondition(conditions: readonly JobCondition[], condition: JobCondition): readonly JobCondition[] {
  if (isFailed(conditions)) return conditions;
  const current = findCondition(conditions, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return conditions;
  const updated =
    current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  const terminal = condition.type === CONDITION_FAILED || condition.type === CONDITION_SUCCEEDED;
  const kept = conditions
    .filter((c) => !dropOnSet(condition.type, c))
    .map((c) => (terminal && c.type === CONDITION_RUNNING ? { ...c, status: CONDITION_FALSE } : c));
  return [...kept, updated];
}

/**
 * `Created` is the first condition every job gets. When it is missing or not True (the status was
 * written by someone else, e.g. a user faking `Succeeded` through the status subresource), it goes
 * back to the front rather than to the end: the last condition is the job's State (kubectl's column,
 * Pipelines' completion check), and it must never fall back to Created for a job that went further.
 */
export function ensureCreated(conditions: readonly JobCondition[], created: JobCondition): readonly JobCondition[] {
  const current = findCondition(conditions, CONDITION_CREATED);
  if (current?.status === CONDITION_TRUE) return conditions;
  return [created, ...conditions.filter((c) => c.type !== CONDITION_CREATED)];
}

/** Shorthand for `setCondition(conditions, newCondition(...))`. */
export function updateConditions(
  conditions: readonly JobCondition[],
  type: ConditionType,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: Date,
): readonly JobCondition[] {
  return setCondition(conditions, newCondition(type, status, reason, message, now));
}
