// tf-operator's `UpdateJobStatus` for TFJob, including its quirks:
// - with a Chief/Master spec only the chief decides Running and Succeeded; otherwise only Worker does
//   (worker 0 succeeding is enough unless successPolicy is AllWorkers); PS never drives success;
// - any type with failed pods fails the job, unless a Restarting condition existed when the decision
//   started (the failed pod is being recreated), or the Worker type of a dynamic-worker job (of our
//   elastic jobs: other than worker 0 when it is the chief);
// - Succeeded and Failed can both be set in one pass (the last one wins kubectl's State column).

import { CONDITION_RESTARTING, CONDITION_TRUE } from '../../api/v1/conditions.ts';
import { REPLICA_TYPES, REPLICA_TYPE_WORKER, isChiefOrMaster } from '../../api/v1/replica-types.ts';
import { SUCCESS_POLICY_ALL_WORKERS } from '../../api/v1/policies.ts';
import type { JobCondition } from '../../api/v1/schema.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import { conditionFor } from './condition-constructors.ts';
import { findCondition, setCondition, updateConditions } from './conditions.ts';
import type { JobEvent } from './events.ts';
import { EVENT_FAILED, EVENT_SUCCEEDED, messages, normal } from './events.ts';
import { kubeletRejection } from './kubelet-rejection.ts';
import { PHASE_FAILED, PHASE_SUCCEEDED, podPhase, replicaIndex, tensorflowExitCode } from './pod-state.ts';
import type { ReplicaCounts } from './replica-status.ts';
import { ZERO_COUNTS } from './replica-status.ts';
import { formatTime } from './time.ts';

export interface StatusDecisionInput {
  readonly name: string;
  readonly namespace: string;
  /** Canonical replica type → replicas (for an elastic Worker: its current target). */
  readonly replicas: Readonly<Record<string, number>>;
  /** This pass's counts per type. */
  readonly counts: Readonly<Record<string, ReplicaCounts>>;
  readonly successPolicy: string;
  /** Worker failures do not fail the job (enableDynamicWorker, and our elastic jobs). */
  readonly tolerateWorkerFailures: boolean;
  /**
   * Except worker 0's, when no Chief/Master exists (our elastic jobs: worker 0 is the chief, is never
   * scaled in, and alone decides success; a job without it would show Running for ever).
   */
  readonly worker0FailureFailsJob: boolean;
  readonly worker0Completed: boolean;
  /** The pod with Worker index 0 is Failed (not being restarted). */
  readonly worker0Failed: boolean;
  readonly conditions: readonly JobCondition[];
  readonly startTime?: string;
  readonly completionTime?: string;
  readonly now: Date;
}

export interface StatusDecision {
  readonly conditions: readonly JobCondition[];
  readonly startTime: string;
  readonly completionTime?: string;
  readonly events: readonly JobEvent[];
}

/**
 * `IsWorker0Completed`: true without a Worker spec; otherwise the single pod with index 0 is Succeeded
 * and its tensorflow container exited 0 (no terminated state counts as 0 here).
 */
export function isWorker0Completed(hasWorkerSpec: boolean, workerPods: readonly Pod[]): boolean {
  if (!hasWorkerSpec) return true;
  const atZero = workerPods.filter((p) => replicaIndex(p) === 0);
  if (atZero.length !== 1) return false;
  const pod = atZero[0]!;
  return podPhase(pod) === PHASE_SUCCEEDED && tensorflowExitCode(pod, 0) === 0;
}

/** The single pod with Worker index 0 is Failed. */
export function isWorker0Failed(workerPods: readonly Pod[]): boolean {
  const atZero = workerPods.filter((p) => replicaIndex(p) === 0);
  // A worker 0 the kubelet refused is placed again, not a failure (kubelet-rejection.ts).
  return atZero.length === 1 && podPhase(atZero[0]!) === PHASE_FAILED && kubeletRejection(atZero[0]!) === undefined;
}

export function decideJobStatus(input: StatusDecisionInput): StatusDecision {
  const { name, namespace, now } = input;
  const events: JobEvent[] = [];
  let conditions = input.conditions;
  let completionTime = input.completionTime;
  const startTime = input.startTime ?? formatTime(now);
  const types = REPLICA_TYPES.filter((t) => input.replicas[t] !== undefined);
  const hasChiefOrMaster = types.some(isChiefOrMaster);
  const restarting = findCondition(conditions, CONDITION_RESTARTING);

  const succeed = (): void => {
    const message = messages.succeeded(namespace, name);
    events.push(normal(EVENT_SUCCEEDED, message));
    completionTime ??= formatTime(now);
    conditions = setCondition(conditions, conditionFor.succeeded(namespace, name, now));
  };
  const run = (): void => {
    conditions = setCondition(conditions, conditionFor.running(namespace, name, now));
  };

  for (const type of types) {
    const counts = input.counts[type] ?? ZERO_COUNTS;
    const expected = (input.replicas[type] ?? 0) - counts.succeeded;
    if (hasChiefOrMaster) {
      if (isChiefOrMaster(type)) {
        if (counts.active > 0) run();
        if (expected === 0) succeed();
      }
    } else if (type === REPLICA_TYPE_WORKER) {
      if (expected === 0 || (input.worker0Completed && input.successPolicy !== SUCCESS_POLICY_ALL_WORKERS)) succeed();
      else if (counts.active > 0) run();
    }

    if (counts.failed > 0) {
      if (restarting) {
        conditions = updateConditions(
          conditions,
          CONDITION_RESTARTING,
          CONDITION_TRUE,
          restarting.reason ?? '',
          restarting.message ?? '',
          now,
        );
      } else if (
        input.tolerateWorkerFailures &&
        type === REPLICA_TYPE_WORKER &&
        !(input.worker0FailureFailsJob && input.worker0Failed && !hasChiefOrMaster)
      ) {
        // tf-operator: "continues regardless of Worker failures as enableDynamicWorker is set".
      } else {
        const message = messages.failedReplicas(namespace, name, counts.failed, type);
        events.push(normal(EVENT_FAILED, message));
        completionTime ??= formatTime(now);
        conditions = setCondition(conditions, conditionFor.failedReplicas(namespace, name, counts.failed, type, now));
      }
    }
  }
  return { conditions, startTime, ...(completionTime === undefined ? {} : { completionTime }), events };
}
