// Every condition tf-operator sets on a TFJob, with its exact reason and message (compat §1.5).

import type { JobCondition } from '../../api/v1/schema.ts';
import {
  CONDITION_CREATED,
  CONDITION_FAILED,
  CONDITION_FALSE,
  CONDITION_RESTARTING,
  CONDITION_RUNNING,
  CONDITION_SUCCEEDED,
  CONDITION_SUSPENDED,
  CONDITION_TRUE,
  REASON_CREATED,
  REASON_FAILED,
  REASON_FAILED_VALIDATION,
  REASON_RESTARTING,
  REASON_RESUMED,
  REASON_RUNNING,
  REASON_SUCCEEDED,
  REASON_SUSPENDED,
} from '../../api/v1/conditions.ts';
import { newCondition } from './conditions.ts';
import { messages } from './events.ts';

export const conditionFor = {
  created: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_CREATED, CONDITION_TRUE, REASON_CREATED, messages.created(name), now),
  running: (namespace: string, name: string, now: Date): JobCondition =>
    newCondition(CONDITION_RUNNING, CONDITION_TRUE, REASON_RUNNING, messages.running(namespace, name), now),
  restarting: (name: string, replicaType: string, now: Date): JobCondition =>
    newCondition(CONDITION_RESTARTING, CONDITION_TRUE, REASON_RESTARTING, messages.restarting(name, replicaType), now),
  succeeded: (namespace: string, name: string, now: Date): JobCondition =>
    newCondition(CONDITION_SUCCEEDED, CONDITION_TRUE, REASON_SUCCEEDED, messages.succeeded(namespace, name), now),
  /** Ours: stopped as done when its metric reached spec.qoe.targetMetric (onTargetMetric: Stop). */
  succeededAtTarget: (namespace: string, name: string, reached: string, now: Date): JobCondition =>
    newCondition(CONDITION_SUCCEEDED, CONDITION_TRUE, REASON_SUCCEEDED, messages.targetMetricReached(namespace, name, reached), now),
  failedReplicas: (namespace: string, name: string, failed: number, replicaType: string, now: Date): JobCondition =>
    newCondition(CONDITION_FAILED, CONDITION_TRUE, REASON_FAILED, messages.failedReplicas(namespace, name, failed, replicaType), now),
  failedExitCode: (name: string, replicaType: string, now: Date): JobCondition =>
    newCondition(CONDITION_FAILED, CONDITION_TRUE, REASON_FAILED, messages.failingExitCode(name, replicaType), now),
  failedBackoffLimit: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_FAILED, CONDITION_TRUE, REASON_FAILED, messages.backoffLimit(name), now),
  failedActiveDeadline: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_FAILED, CONDITION_TRUE, REASON_FAILED, messages.activeDeadline(name), now),
  /** Ours: the spec cannot run (see docs/differences-from-tf-operator.md). */
  failedValidation: (errors: string, now: Date): JobCondition =>
    newCondition(CONDITION_FAILED, CONDITION_TRUE, REASON_FAILED_VALIDATION, messages.failedValidation(errors), now),
  suspended: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_SUSPENDED, CONDITION_TRUE, REASON_SUSPENDED, messages.suspended(name), now),
  /** Running=False when a running job is suspended. */
  runningSuspended: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_RUNNING, CONDITION_FALSE, REASON_SUSPENDED, messages.suspended(name), now),
  resumed: (name: string, now: Date): JobCondition =>
    newCondition(CONDITION_SUSPENDED, CONDITION_FALSE, REASON_RESUMED, messages.resumed(name), now),
} as const;
