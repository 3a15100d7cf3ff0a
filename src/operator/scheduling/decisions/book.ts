// The decision book: every job's decision (decision.ts) and the pods preempted for them. It is the
// one writer of decisions: the pass's stages and the loop's event handlers change them only through
// the named transitions below, so every way a decision can move is listed in this file. No I/O.
//
//   upkeep, pruneVictims                 the pass, before deciding (what the snapshot found)
//   avoid, preempting, suspend, scaleIn,  the pass's apply stage, one per kind of plan entry
//   admit, scaleOut, repair, shrink,
//   explain, wait, chargeTo, weigh,
//   reportAttained
//   podCreated, podGone, forget          informer and reconcile events between passes
//   handedOut                            the TFJob controller took placements to create pods from
import type { Decision, DecisionView, Pending } from './decision.ts';

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

/** A pod as the book tells it: its `namespace/name`, UID and node. */
export interface PodRef {
  readonly key: string;
  readonly uid: string | undefined;
  readonly node?: string | undefined;
}

/** Where an admission puts the job's replicas: fixed ones by pod name, elastic workers by node. */
export interface Admission {
  readonly byName: readonly (readonly [name: string, node: string])[];
  readonly workerNodes: readonly string[];
  readonly targetWorkers: number;
  readonly starving: boolean;
  /** Workers beyond the minimum taken at admission: a scale-out into idle capacity too. */
  readonly scaledOut: number;
}

export class DecisionBook {
  readonly #byJob = new Map<string, Decision>();
  /**
   * Every pod preempted by this operator and not yet seen gone (namespace/name → UID), whichever job
   * it was preempted for. Its capacity counts as its preemptor's from the moment it is chosen, so no
   * pod may start on its node until it is gone — not even before the cache shows it terminating.
   */
  readonly #preempted = new Map<string, string | undefined>();

  // --- reads ---

  get(key: string): DecisionView | undefined {
    return this.#byJob.get(key);
  }

  entries(): IterableIterator<[string, DecisionView]> {
    return this.#byJob.entries();
  }

  get size(): number {
    return this.#byJob.size;
  }

  /** Whether this pod is one the operator preempted and has not seen gone. */
  isPreempted(podKey: string, uid: string | undefined): boolean {
    return this.#preempted.has(podKey) && this.#preempted.get(podKey) === uid;
  }

  // --- the pass, before deciding ---

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
   * Drops every victim that is gone: `current` gives the UID of the pod now cached under a name,
   * undefined when there is none (its delete event may have been missed).
   */
  pruneVictims(current: (podKey: string) => { readonly uid: string | undefined } | undefined): void {
    for (const d of this.#byJob.values()) {
      for (const [victim, uid] of d.victims) {
        const pod = current(victim);
        if (pod !== undefined && pod.uid === uid) continue;
        d.victims.delete(victim);
        if (this.#preempted.get(victim) === uid) this.#preempted.delete(victim);
      }
    }
  }

  // --- the apply stage ---

  /** The job's pods are not placed on `node` until `until` (ms): kube-scheduler refused one there. */
  avoid(jobKey: string, node: string, until: number): void {
    this.#byJob.get(jobKey)?.avoidNodes.set(node, until);
  }

  /** `pod` is about to be removed so that `forJob` fits: registered before the delete is sent. */
  preempting(forJob: string, pod: PodRef): void {
    this.#byJob.get(forJob)?.victims.set(pod.key, pod.uid);
    this.#preempted.set(pod.key, pod.uid);
  }

  /** Every pod of the job was removed (`preempted` workers among them): it is back in the queue. */
  suspend(jobKey: string, to: { readonly minWorkers: number; readonly preempted: number; readonly now: number }): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    d.admitted = false;
    d.pendingByName.clear();
    d.pendingWorkers = [];
    d.targetWorkers = to.minWorkers;
    d.preemptions += to.preempted;
    d.lastScaleTime = new Date(to.now).toISOString();
  }

  /**
   * `removed` workers of the job were taken away. A move (relocated) keeps the job's size: its
   * replacements come in the same plan's scale-out. Others lower its target, never below `minWorkers`.
   */
  scaleIn(
    jobKey: string,
    s: { readonly removed: number; readonly relocated: boolean; readonly minWorkers: number; readonly now: number },
  ): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    if (!s.relocated) d.targetWorkers = Math.max(s.minWorkers, d.targetWorkers - s.removed);
    d.preemptions += s.removed;
    d.lastScaleTime = new Date(s.now).toISOString();
  }

  admit(jobKey: string, a: Admission, now: number): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    d.admitted = true;
    for (const [name, node] of a.byName) d.pendingByName.set(name, { node, since: now });
    for (const node of a.workerNodes) d.pendingWorkers.push({ node, since: now });
    d.targetWorkers = a.targetWorkers;
    d.starving = a.starving;
    if (a.scaledOut > 0) {
      d.scaleOuts += a.scaledOut;
      d.lastScaleTime = new Date(now).toISOString();
    }
  }

  /**
   * `added` new workers, placed on `nodes`. `moved` of them replace workers relocated in the same
   * plan: only the others raise the target (never above `maxWorkers`).
   */
  scaleOut(
    jobKey: string,
    s: {
      readonly nodes: readonly string[];
      readonly added: number;
      readonly moved: number;
      readonly maxWorkers: number;
      readonly now: number;
    },
  ): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    for (const node of s.nodes) d.pendingWorkers.push({ node, since: s.now });
    d.targetWorkers = Math.min(s.maxWorkers, d.targetWorkers + s.added - s.moved);
    d.scaleOuts += s.added;
    d.lastScaleTime = new Date(s.now).toISOString();
  }

  /** A lost replica goes to `node` again: by its pod name, or (an elastic worker) by node only. */
  repair(jobKey: string, r: { readonly name: string | undefined; readonly node: string }, now: number): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    if (r.name !== undefined) d.pendingByName.set(r.name, { node: r.node, since: now });
    else d.pendingWorkers.push({ node: r.node, since: now });
  }

  /** An elastic job lost `workers` it cannot get back: its target drops by as many. */
  shrink(jobKey: string, workers: number): void {
    const d = this.#byJob.get(jobKey);
    if (d !== undefined) d.targetWorkers -= workers;
  }

  /** What `status.scheduling` says the scheduler last did to the job. */
  explain(jobKey: string, reason: string, message: string): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
    d.reason = reason;
    d.message = message;
  }

  /** The job waits, for this reason; true when that is news to its status. */
  wait(jobKey: string, w: { readonly reason: string; readonly message: string; readonly starving: boolean }): boolean {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return false;
    const news = d.message !== w.message || d.reason !== w.reason || d.starving !== w.starving;
    if (news) {
      d.reason = w.reason;
      d.message = w.message;
      d.starving = w.starving;
    }
    return news;
  }

  /** The ClusterQueue the job is charged to (undefined: none); true when it changed. */
  chargeTo(jobKey: string, clusterQueue: string | undefined): boolean {
    const d = this.#byJob.get(jobKey);
    if (d === undefined || d.clusterQueue === clusterQueue) return false;
    if (clusterQueue === undefined) delete d.clusterQueue;
    else d.clusterQueue = clusterQueue;
    return true;
  }

  /** The job's weight, rounded as its status shows it; true when that changed. */
  weigh(jobKey: string, weight: number): boolean {
    const d = this.#byJob.get(jobKey);
    const rounded = Math.round(weight * 1000) / 1000;
    if (d === undefined || d.weight === rounded) return false;
    d.weight = rounded;
    return true;
  }

  /** The status catches up with the attained service counted so far. */
  reportAttained(jobKey: string): void {
    const d = this.#byJob.get(jobKey);
    if (d !== undefined) d.attainedReported = Math.floor(d.attainedWorkerSeconds);
  }

  // --- between passes ---

  /**
   * The reconciler was handed these placements to create pods with: their wait starts again. A
   * placement must not expire between the create that uses it and the cache showing the pod (under a
   * long work queue the create can come late in the TTL; a pass that then saw neither the placement
   * nor the pod would count its room as free and place another job there: the over-commit of the
   * full-size load run). A job whose creates keep failing hands its placements out only at each retry
   * (capped back-off), so they still expire between retries longer than the TTL.
   */
  handedOut(jobKey: string, names: readonly string[], workerNodes: readonly string[], now: number): void {
    const d = this.#byJob.get(jobKey);
    if (d === undefined) return;
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
   * A pod is gone from the cluster: jobs that waited for it as their last victim may go on, and so
   * may jobs with placements on its node (a preempted pod terminating there held them; input.ts).
   * Returns those jobs.
   */
  podGone(pod: PodRef): string[] {
    if (this.isPreempted(pod.key, pod.uid)) this.#preempted.delete(pod.key);
    const unblocked: string[] = [];
    for (const [jobKey, d] of this.#byJob) {
      const victim = d.victims.has(pod.key) && d.victims.get(pod.key) === pod.uid;
      if (victim && d.victims.delete(pod.key) && d.victims.size === 0) unblocked.push(jobKey);
      else if (!victim && d.victims.size === 0 && pod.node !== undefined && placedOn(d, pod.node)) unblocked.push(jobKey);
    }
    return unblocked;
  }

  forget(key: string): void {
    const d = this.#byJob.get(key);
    if (d !== undefined) for (const victim of d.victims.keys()) this.#preempted.delete(victim);
    this.#byJob.delete(key);
  }
}

/** Whether the decision has a placement still pending on `node`. */
function placedOn(d: DecisionView, node: string): boolean {
  for (const p of d.pendingByName.values()) if (p.node === node) return true;
  return d.pendingWorkers.some((p) => p.node === node);
}
