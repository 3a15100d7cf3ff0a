// A failed elastic worker under restartPolicy Never: its pod is kept (for its logs) and its slot is
// given up, so the job's worker maximum drops by one. The reconciler and the scheduler both read the
// slots from the job's pods through this file, so they always agree on the job's size: a scheduler
// that counted the failed pod as gone would keep placing a replacement the reconciler never creates.

import type { ElasticBounds } from '../../api/v1/elastic.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_CHIEF, REPLICA_TYPE_MASTER, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { JobEvent } from './events.ts';
import { warning } from './events.ts';
import type { JobView } from './job-view.ts';
import {
  PHASE_FAILED,
  isRemovedByOperator,
  isTerminating,
  ofReplicaType,
  podPhase,
  replicaIndex,
  tensorflowExitCode,
} from './pod-state.ts';
import { UNKNOWN_EXIT_CODE, decideFailedPod } from './restart.ts';
import { kubeletRejection } from './kubelet-rejection.ts';

export type SlotView = Pick<JobView, 'elastic' | 'replicaSpecs' | 'types'>;

/**
 * The worker slots (indices, ascending) of an elastic job whose pod failed for good and whose
 * failure the job tolerates: restartPolicy Never (OnFailure/Always/retryable ExitCode re-create the
 * pod in its slot; a permanent ExitCode fails the job), and not worker 0 of a job without a Chief or
 * Master (that failure fails the job). A pod being deleted or removed by the operator gives nothing up.
 */
export function givenUpWorkerSlots(view: SlotView, pods: readonly Pod[]): number[] {
  const spec = view.replicaSpecs[REPLICA_TYPE_WORKER];
  if (view.elastic === undefined || spec === undefined) return [];
  const hasChief = view.types.includes(REPLICA_TYPE_CHIEF) || view.types.includes(REPLICA_TYPE_MASTER);
  const slots = new Set<number>();
  for (const pod of ofReplicaType(pods, REPLICA_TYPE_WORKER)) {
    const index = replicaIndex(pod);
    if (index === undefined || index >= view.elastic.max || (index === 0 && !hasChief)) continue;
    if (podPhase(pod) !== PHASE_FAILED || isTerminating(pod) || isRemovedByOperator(pod)) continue;
    // A pod a kubelet refused never ran: its replica is placed again, its slot kept (kubelet-rejection.ts).
    if (kubeletRejection(pod) !== undefined) continue;
    if (decideFailedPod(spec.restartPolicy, tensorflowExitCode(pod, UNKNOWN_EXIT_CODE)) !== 'none') continue;
    slots.add(index);
  }
  return [...slots].sort((a, b) => a - b);
}

/** The elastic bounds the job still has once `givenUp` slots are gone (the minimum never above the maximum). */
export function boundsWithoutGivenUp(bounds: ElasticBounds, givenUp: number): ElasticBounds {
  const max = Math.max(0, bounds.max - givenUp);
  return { min: Math.min(bounds.min, max), max };
}

export const EVENT_WORKER_SLOT_GIVEN_UP = 'WorkerSlotGivenUp';

/** The job's view with its elastic worker target held within the bounds it still has. */
export function withoutGivenUpSlots<V extends JobView>(view: V, slots: readonly number[]): V {
  if (view.elastic === undefined || slots.length === 0) return view;
  const bounds = boundsWithoutGivenUp(view.elastic, slots.length);
  const target = view.replicas[REPLICA_TYPE_WORKER] ?? bounds.max;
  const workers = Math.min(bounds.max, Math.max(bounds.min, target));
  return { ...view, replicas: { ...view.replicas, [REPLICA_TYPE_WORKER]: workers }, givenUpWorkerSlots: slots };
}

/** One Warning per slot given up since the stored status last listed them. */
export function givenUpSlotEvents(
  view: JobView,
  pods: readonly Pod[],
  slots: readonly number[],
  stored: readonly number[] | undefined,
): JobEvent[] {
  if (view.elastic === undefined) return [];
  const before = new Set(stored ?? []);
  const total = view.elastic.max;
  const max = boundsWithoutGivenUp(view.elastic, slots.length).max;
  const workers = ofReplicaType(pods, REPLICA_TYPE_WORKER);
  return slots
    .filter((slot) => !before.has(slot))
    .map((slot) => {
      const pod = workers.find((p) => replicaIndex(p) === slot && podPhase(p) === PHASE_FAILED);
      const code = pod === undefined ? UNKNOWN_EXIT_CODE : tensorflowExitCode(pod, UNKNOWN_EXIT_CODE);
      const exit = code === UNKNOWN_EXIT_CODE ? 'no exit code' : `exit code ${code}`;
      return warning(
        EVENT_WORKER_SLOT_GIVEN_UP,
        `Worker ${slot} of ${view.namespace}/${view.name} failed (${exit}) under restartPolicy Never: its slot is given up ` +
          `and the job runs on with at most ${max} of ${total} workers; the failed pod is kept for its logs ` +
          `(deleting it gives the slot back). TF_CONFIG of the other replicas is unchanged.`,
      );
    });
}
