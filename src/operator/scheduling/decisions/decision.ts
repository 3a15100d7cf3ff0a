// One job's scheduling decision: what the scheduler wants for it between passes (admitted or waiting,
// how many workers, where each pod it placed but has not seen yet goes, which victims must be gone
// first). It is a cache of state kept in the API (the queue, enqueue time and counters in
// `status.scheduling`, placements on the pods): `restoreDecision` rebuilds one from there after a
// restart or a failover. Readers get a `DecisionView`; only the book (book.ts) changes a decision.
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE } from '../../../api/v1/constants.ts';
import type { TFJob } from '../../../api/v1/schema.ts';
import { moveUnderWay } from '../../../api/v1/migration.ts';
import { isLive, isLiveWorker } from '../pod-facts.ts';

/** A pending placement never observed as a pod within this time is dropped (its create failed). */
export const PENDING_TTL_MS = 60_000;

export interface Pending {
  readonly node: string;
  readonly since: number;
}

export interface Decision {
  admitted: boolean;
  /** Desired live workers of an elastic job. */
  targetWorkers: number;
  /** Fixed replicas (and workers of fixed-size jobs) to create, by pod name. */
  readonly pendingByName: Map<string, Pending>;
  /** Nodes for new workers of an elastic job, whichever free index each one takes. */
  pendingWorkers: Pending[];
  /**
   * Pods preempted for this job (namespace/name → UID) that must be gone before its pods are created.
   * The UID tells the victim from a later pod of the same name, which must not hold the job back.
   */
  readonly victims: Map<string, string | undefined>;
  /**
   * Nodes kube-scheduler refused one of this job's pods on (node → until when, ms): the job's pods
   * are not placed there meanwhile. Kept in memory only: after a restart a refusal is seen again.
   */
  readonly avoidNodes: Map<string, number>;
  readonly enqueueTime: number;
  weight?: number;
  /** The ClusterQueue whose quota the job is charged to (queues, docs/queues.md); absent: none. */
  clusterQueue?: string;
  starving: boolean;
  reason?: string;
  message?: string;
  preemptions: number;
  scaleOuts: number;
  lastScaleTime?: string;
  /** Worker-seconds held by the job's running workers so far (restored from the status). */
  attainedWorkerSeconds: number;
  /** When attained service was last counted (ms); undefined until the first pass sees the job. */
  attainedAt?: number;
  /**
   * The attained service `status.scheduling` shows. It is brought up to date only when it lags by
   * enough (`attainedReportDue`), so a running job's status is not rewritten every minute, and a
   * restart, which restores from it, loses at most that lag.
   */
  attainedReported: number;
}

/** A decision as everyone but the book sees it: read only, maps and lists included. */
export type DecisionView = {
  readonly [K in keyof Decision]: Decision[K] extends Map<infer K2, infer V>
    ? ReadonlyMap<K2, V>
    : Decision[K] extends readonly (infer E)[]
      ? readonly E[]
      : Decision[K];
};

/**
 * Report attained service again once it doubled, and by at least a worker-hour, since the last report:
 * a job's status is written about log2(service / 1 worker-hour) times in its life (7 for 4 workers
 * over a day), and a restart loses at most half of a job's service. Smaller steps made 10,000 jobs
 * started together rewrite their statuses in waves of 10,000 writes every few minutes.
 */
export function attainedReportDue(d: Pick<DecisionView, 'attainedWorkerSeconds' | 'attainedReported'>): boolean {
  const growth = d.attainedWorkerSeconds - d.attainedReported;
  return growth >= 3600 && growth >= d.attainedReported;
}

/** A decision as the API last recorded it (`status.scheduling`, the job's pods). */
export function restoreDecision(raw: TFJob, pods: readonly V1Pod[], now: number): Decision {
  const status = raw.status?.scheduling;
  const created = raw.metadata.creationTimestamp === undefined ? now : new Date(raw.metadata.creationTimestamp).getTime();
  const enqueue = status?.enqueueTime === undefined ? created : new Date(status.enqueueTime).getTime();
  const running = status?.queue === 'Running' || pods.some(isLive);
  return {
    admitted: running,
    targetWorkers: restoredTarget(status?.workers?.current, pods, moveUnderWay(raw.status)?.pod),
    pendingByName: new Map(),
    pendingWorkers: [],
    victims: new Map(),
    avoidNodes: new Map(),
    enqueueTime: Number.isFinite(enqueue) ? enqueue : created,
    starving: status?.starving ?? false,
    ...(status?.reason === undefined ? {} : { reason: status.reason }),
    ...(status?.message === undefined ? {} : { message: status.message }),
    preemptions: status?.preemptions ?? 0,
    scaleOuts: status?.scaleOuts ?? 0,
    ...(status?.lastScaleTime === undefined ? {} : { lastScaleTime: status.lastScaleTime }),
    ...(status?.weight === undefined ? {} : { weight: Number(status.weight) }),
    attainedWorkerSeconds: status?.attainedWorkerSeconds ?? 0,
    attainedReported: status?.attainedWorkerSeconds ?? 0,
  };
}

/**
 * The worker target recorded, else the live workers. Live workers without any pod at slot 0 were
 * given more than they have (creates fill slot 0 first; one was lost with the operator that sent
 * it): one more, so the next placement refills worker 0, whose completion decides the job's success.
 */
function restoredTarget(recorded: number | undefined, pods: readonly V1Pod[], moving: string | undefined): number {
  const live = pods.filter(isLiveWorker);
  const target = recorded ?? live.length;
  const workerZero = pods.some(
    (p) => p.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker' && p.metadata.labels[LABEL_REPLICA_INDEX] === '0',
  );
  // A worker SpeCon was moving is still wanted: the status may have counted the job without it.
  const moved = moving !== undefined && !live.some((p) => p.metadata?.name === moving);
  return (live.length > 0 && !workerZero) || moved ? Math.max(target, live.length + 1) : target;
}

/** Whether a pending placement is still worth waiting for. */
export function pendingAlive(p: Pending, now: number): boolean {
  return now - p.since < PENDING_TTL_MS;
}
