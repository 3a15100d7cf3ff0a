// What the scheduler wants for each job between passes: admitted or waiting, how many workers, where
// each pod it placed but has not seen yet goes, which victims must be gone first. It is a cache of
// state kept in the API (the queue, enqueue time and counters in `status.scheduling`, placements on
// the pods): `restoreDecision` rebuilds an entry from there after a restart or a failover.
//
// No I/O here. The stages change entries only through the book's named transitions, so every way a
// decision can move is listed in this file.
import type { V1Pod } from '@kubernetes/client-node';
import type { TFJob } from '../../../api/v1/schema.ts';
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
  /** Nodes where this job's placements wait for a pod preempted for another job to be gone. */
  readonly heldOnNodes: Set<string>;
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

/**
 * Report attained service again once it doubled, and by at least a worker-hour, since the last report:
 * a job's status is written about log2(service / 1 worker-hour) times in its life (7 for 4 workers
 * over a day), and a restart loses at most half of a job's service. Smaller steps made 10,000 jobs
 * started together rewrite their statuses in waves of 10,000 writes every few minutes.
 */
export function attainedReportDue(d: Pick<Decision, 'attainedWorkerSeconds' | 'attainedReported'>): boolean {
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
    targetWorkers: status?.workers?.current ?? pods.filter(isLiveWorker).length,
    pendingByName: new Map(),
    pendingWorkers: [],
    victims: new Map(),
    heldOnNodes: new Set(),
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

/** Whether a pending placement is still worth waiting for. */
export function pendingAlive(p: Pending, now: number): boolean {
  return now - p.since < PENDING_TTL_MS;
}

/**
 * The reconciler was handed these placements to create pods with: their wait starts again. A
 * placement must not expire between the create that uses it and the cache showing the pod (under a
 * long work queue the create can come late in the TTL; a pass that then saw neither the placement
 * nor the pod would count its room as free and place another job there: the over-commit of the
 * full-size load run). A job whose creates keep failing hands its placements out only at each retry
 * (capped back-off), so they still expire between retries longer than the TTL.
 */
export function handedOut(d: Decision, names: readonly string[], workerNodes: readonly string[], now: number): void {
  for (const name of names) {
    const p = d.pendingByName.get(name);
    if (p !== undefined) d.pendingByName.set(name, { node: p.node, since: now });
  }
  const nodes = [...workerNodes];
  d.pendingWorkers = d.pendingWorkers.map((p) => {
    const i = nodes.indexOf(p.node);
    if (i < 0) return p;
    nodes.splice(i, 1);
    return { node: p.node, since: now };
  });
}

/** Housekeeping a snapshot found: what to register, forget or prune before deciding. */
export interface Upkeep {
  /** Decisions rebuilt from the API for jobs seen for the first time. */
  readonly restored: ReadonlyMap<string, Decision>;
  /** Suspended jobs: they leave the queues (their enqueue time is kept). */
  readonly suspended: readonly string[];
  /** Placements that expired or whose pod now exists, per job. */
  readonly settled: ReadonlyMap<string, { readonly names: readonly string[]; readonly workersAlive: readonly Pending[] }>;
  /** Attained service per job as counted at `at` (ms). */
  readonly attained: ReadonlyMap<string, number>;
  readonly at: number;
}

export class DecisionBook {
  readonly #byJob = new Map<string, Decision>();
  /**
   * Every pod preempted by this operator and not yet seen gone (namespace/name → UID), whichever job
   * it was preempted for. Its capacity counts as its preemptor's from the moment it is chosen, so no
   * pod may start on its node until it is gone — not even before the cache shows it terminating.
   */
  readonly #preempted = new Map<string, string | undefined>();

  get(key: string): Decision | undefined {
    return this.#byJob.get(key);
  }

  /** The job's decision, rebuilt from the API the first time it is asked for. */
  ensure(key: string, raw: TFJob, pods: readonly V1Pod[], now: number): Decision {
    let d = this.#byJob.get(key);
    if (d === undefined) {
      d = restoreDecision(raw, pods, now);
      this.#byJob.set(key, d);
    }
    return d;
  }

  entries(): IterableIterator<[string, Decision]> {
    return this.#byJob.entries();
  }

  get size(): number {
    return this.#byJob.size;
  }

  forget(key: string): void {
    const d = this.#byJob.get(key);
    if (d !== undefined) for (const victim of d.victims.keys()) this.#preempted.delete(victim);
    this.#byJob.delete(key);
  }

  /** The job's pods are not placed on `node` until `until` (ms): kube-scheduler refused one there. */
  avoid(jobKey: string, node: string, until: number): void {
    this.#byJob.get(jobKey)?.avoidNodes.set(node, until);
  }

  /** `pod` is about to be removed so that `forJob` fits: registered before the delete is sent. */
  preempting(forJob: string, pod: { readonly key: string; readonly uid: string | undefined }): void {
    this.#byJob.get(forJob)?.victims.set(pod.key, pod.uid);
    this.#preempted.set(pod.key, pod.uid);
  }

  /** Whether this pod is one the operator preempted and has not seen gone. */
  isPreempted(podKey: string, uid: string | undefined): boolean {
    return this.#preempted.has(podKey) && this.#preempted.get(podKey) === uid;
  }

  /**
   * Drops the victims of `jobKey` that are gone: `current` gives the UID of the pod now cached under
   * a name, undefined when there is none (its delete event may have been missed).
   */
  pruneVictims(jobKey: string, current: (podKey: string) => { readonly uid: string | undefined } | undefined): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    for (const [victim, uid] of d.victims) {
      const pod = current(victim);
      if (pod === undefined || pod.uid !== uid) {
        d.victims.delete(victim);
        if (this.#preempted.get(victim) === uid) this.#preempted.delete(victim);
      }
    }
  }

  upkeep(u: Upkeep): void {
    for (const [key, d] of u.restored) if (!this.#byJob.has(key)) this.#byJob.set(key, d);
    for (const key of u.suspended) {
      const d = this.#byJob.get(key);
      if (d === undefined) continue;
      d.admitted = false;
      d.pendingByName.clear();
      d.pendingWorkers = [];
    }
    for (const [key, seconds] of u.attained) {
      const d = this.#byJob.get(key);
      if (d === undefined) continue;
      d.attainedWorkerSeconds = seconds;
      d.attainedAt = u.at;
    }
    for (const [key, s] of u.settled) {
      const d = this.#byJob.get(key);
      if (d === undefined) continue;
      for (const name of s.names) d.pendingByName.delete(name);
      d.pendingWorkers = [...s.workersAlive];
    }
  }

  /**
   * One of our pods appeared: the placement it was created from is no longer pending. A fixed
   * replica is matched by name, an elastic worker by node (it takes whichever free index).
   */
  podCreated(jobKey: string, pod: { readonly name: string; readonly node: string | undefined; readonly worker: boolean }): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    if (d.pendingByName.delete(pod.name)) return;
    const i = d.pendingWorkers.findIndex((p) => p.node === pod.node);
    if (i >= 0 && pod.worker) d.pendingWorkers.splice(i, 1);
  }

  /**
   * A pod is gone from the cluster: jobs that waited for it as a victim, or for a node it held, may
   * go on. Returns those jobs.
   */
  podGone(pod: { readonly key: string; readonly uid: string | undefined; readonly node: string | undefined }): string[] {
    if (this.#preempted.has(pod.key) && this.#preempted.get(pod.key) === pod.uid) this.#preempted.delete(pod.key);
    const unblocked: string[] = [];
    for (const [jobKey, d] of this.#byJob) {
      const victim = d.victims.has(pod.key) && d.victims.get(pod.key) === pod.uid;
      if (victim && d.victims.delete(pod.key) && d.victims.size === 0) unblocked.push(jobKey);
      else if (pod.node !== undefined && d.heldOnNodes.delete(pod.node)) unblocked.push(jobKey);
    }
    return unblocked;
  }
}
