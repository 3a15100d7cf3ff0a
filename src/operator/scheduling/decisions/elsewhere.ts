// A TFJob whose replica templates name a scheduler other than kube-scheduler (Volcano, YuniKorn,
// coscheduling, ...) is placed by the schedulers its templates name, as under tf-operator: every pod
// is created at once, without `nodeName`, its template's `schedulerName` intact. The queue does not
// admit it, the core neither places, scales nor preempts it; its pods, once bound, are capacity like
// any other workload's (the snapshot counts them by node). What the reconciler gets for it is here.
import type { V1Pod } from '@kubernetes/client-node';
import { QUEUE_FINISHED, QUEUE_RUNNING, QUEUE_WAITING, type SchedulingStatus } from '../../../api/v1/schema.ts';
import { describeSchedulers, workersSummary, type ReplicaScheduler, type SchedulingInput } from '../../../reconciler/tfjob/index.ts';
import { isLive, isLiveWorker } from '../pod-facts.ts';

/** `status.scheduling.reason` and the event reason of such a job. */
export const PLACED_BY_SCHEDULER = 'PlacedByScheduler';

export interface ElsewhereFacts {
  readonly named: readonly ReplicaScheduler[];
  /** The job's pods (controlled by it). */
  readonly pods: readonly V1Pod[];
  readonly finished: boolean;
  /** Elastic: it runs at its maximum (nobody scales it), as in tf-operator mode. */
  readonly elastic: boolean;
  /** The workers it runs with. */
  readonly workers: number;
}

/** The reconciler's input: admitted, no placements, nothing held back (tf-operator's behaviour). */
export function placedElsewhereInput(facts: ElsewhereFacts): SchedulingInput {
  return {
    admitted: true,
    ...(facts.elastic ? { workers: facts.workers } : {}),
    placements: {},
    workerNodes: [],
    requirePlacement: false,
    unpinned: true,
    status: placedElsewhereStatus(facts),
  };
}

/** Waiting while some pod is not bound yet ("why is my job waiting?": which scheduler, how many pods). */
export function placedElsewhereStatus(facts: ElsewhereFacts): SchedulingStatus {
  const live = facts.pods.filter(isLive);
  const unbound = live.filter((p) => p.spec?.nodeName === undefined || p.spec.nodeName === '').length;
  const queue = facts.finished ? QUEUE_FINISHED : live.length === 0 || unbound > 0 ? QUEUE_WAITING : QUEUE_RUNNING;
  const current = facts.pods.filter((p) => isLiveWorker(p) && p.spec?.nodeName !== undefined).length;
  const pods = facts.finished ? '' : live.length === 0 ? '; no pods yet' : `; ${unbound} of ${live.length} pods not bound to a node yet`;
  return {
    queue,
    workers: { current, min: facts.workers, max: facts.workers },
    workersSummary: workersSummary(current, facts.workers, facts.workers),
    reason: PLACED_BY_SCHEDULER,
    message: `${describeSchedulers(facts.named)}${pods}`,
  };
}
