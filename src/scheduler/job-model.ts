// Jobs as one pass sees them: specs compiled to resource vectors and feasibility masks, replicas
// of running jobs resolved to node indices, and each job's rank. Built once per pass from the
// snapshot, in canonical order, so the order of the snapshot's arrays never matters.

import { targetMinimum } from './qoe-minimum.ts';
import type { SchedulerConfig } from './config.ts';
import { ClusterState, canonicalNodes, clusterBase, collectResourceNames, FeasibilityMasks } from './cluster-state.ts';
import type { BoundLoad } from './cluster-state.ts';
import { ResourceIndex, VectorTable } from './resource-vector.ts';
import { effectiveLogit, isStarving } from './starvation.ts';
import type { ClusterSnapshot, FixedReplicaGroup, JobState, PlacementConstraints, Resources } from './types.ts';
import { clusterAllocatable, compareRank, jobWeightFrom, minimumRequests, sigmoid } from './weight.ts';
import type { RankKey } from './weight.ts';

/** One replica group compiled for the pass. */
export interface CompiledGroup {
  readonly type: string;
  readonly requests: Resources;
  readonly vec: Float64Array;
  readonly maskId: number;
  /** Fixed groups: their replica count. Worker group: the minimum. */
  readonly count: number;
  /** Cache key of (requests, constraints): the request vector's id in the pass's `VectorTable` and the mask id. */
  readonly shapeKey: string;
}

/** Some replicas of one group: a job's configuration is a list of these (placement.ts). */
export interface ConfigurationItem {
  readonly group: CompiledGroup;
  readonly count: number;
}

export interface CompiledWorkers extends CompiledGroup {
  readonly min: number;
  readonly max: number;
  readonly scalingCurve: readonly number[] | undefined;
}

export interface CompiledJob extends RankKey {
  /** Rank band: 1 when demoted by attained service or (with `demoteConverged`) by a Converged phase. */
  readonly band: number;
  /** Attained-service band alone: what makes a job a suspension victim (a converged job is only shrunk). */
  readonly served: number;
  readonly state: JobState;
  /** Fixed groups in canonical order: PS first (placed first, so workers join it), then by type. */
  readonly fixed: readonly CompiledGroup[];
  readonly workers: CompiledWorkers | undefined;
  readonly minRequests: Resources;
  /** Heuristic logit and weight, before starvation. */
  readonly baseLogit: number;
  readonly baseWeight: number;
  readonly starving: boolean;
  /** Weight used in this pass: 1 when starving. */
  readonly weight: number;
  /** Identifies the job's shape (groups, counts, constraints) for per-pass caches. */
  readonly signature: string;
  /** The placement cache key of its minimum configuration (placement.ts). */
  readonly minimumKey: string;
  /** Its minimum configuration: every fixed replica and the minimum workers (built once per pass, shared). */
  readonly minimum: readonly ConfigurationItem[];
}

/**
 * Whether a replica type is the parameter server's, case-insensitively as tf-operator compares it.
 * Character codes, not `toLowerCase()`: this runs in the sort of every job's groups, every pass,
 * and a lowered copy per call was a few percent of a pass. Only `P`/`p` lower-case to `p` and only
 * `S`/`s` to `s`, so this is the same test.
 */
export function isPsType(type: string): boolean {
  if (type.length !== 2) return false;
  const a = type.charCodeAt(0);
  const b = type.charCodeAt(1);
  return (a === 0x50 || a === 0x70) && (b === 0x53 || b === 0x73);
}

/** A live replica of a running job. `node` is -1 while Pending or when its node is gone. */
export interface LiveReplica {
  readonly type: string;
  readonly index: number;
  readonly node: number;
  readonly createdAt: number | undefined;
  /** No pod yet (`ReplicaInstance.pending`): never removed. */
  readonly pending?: boolean;
}

/** A running job and the changes this pass has made to it so far. */
export interface RunningJob {
  readonly job: CompiledJob;
  readonly fixedReplicas: readonly LiveReplica[];
  /** Current workers by ascending index (scale-in and scale-out update it). */
  workers: LiveReplica[];
  /** Nodes hosting the job's PS replicas (all fixed replicas' nodes when it has no PS). */
  readonly anchorNodes: ReadonlySet<number>;
  /** Worker indices removed in this pass: never reused in the same pass (their pods are still being deleted). */
  readonly removedIndices: Set<number>;
  /**
   * Worker indices whose pod does not exist yet: placed by an earlier pass and still being created,
   * or added by scale-out in this pass. Never removed (a create cannot be recalled: the room it frees
   * would be given twice), and not counted toward the minimum a victim keeps (the plan deletes
   * before it creates, and a placement may still expire).
   */
  readonly podlessIndices: Set<number>;
  scaledInThisPass: boolean;
  readonly admittedThisPass: boolean;
}

/** Takes `removed` away from the job's workers for the rest of the pass (scale-in of any kind). */
export function removeWorkers(job: RunningJob, removed: readonly LiveReplica[]): void {
  const gone = new Set(removed);
  job.workers = job.workers.filter((w) => !gone.has(w));
  for (const w of removed) job.removedIndices.add(w.index);
  job.scaledInThisPass = true;
}

/**
 * New workers of `type` on `nodes` (node indices), at the lowest indices neither in use nor removed
 * in this pass (their pods are still being deleted), added to the job; returns them.
 */
export function addWorkers(job: RunningJob, type: string, nodes: readonly number[], now: number): LiveReplica[] {
  const taken = new Set<number>(job.workers.map((w) => w.index));
  for (const i of job.removedIndices) taken.add(i);
  const added: LiveReplica[] = [];
  for (let i = 0; added.length < nodes.length; i++) {
    if (!taken.has(i)) added.push({ type, index: i, node: nodes[added.length]!, createdAt: now });
  }
  job.workers = [...job.workers, ...added].sort((a, b) => a.index - b.index);
  for (const w of added) job.podlessIndices.add(w.index);
  return added;
}

export interface PassModel {
  readonly now: number;
  readonly config: SchedulerConfig;
  readonly state: ClusterState;
  /** Every unfinished job by key. */
  readonly jobs: ReadonlyMap<string, CompiledJob>;
  /** Waiting jobs by rank, highest first. */
  readonly waiting: readonly CompiledJob[];
  /** Running jobs in key order. */
  readonly running: RunningJob[];
  readonly runningByKey: Map<string, RunningJob>;
  /** Allocatable minus other pods, no managed job: for "can this ever fit" (built on first use). */
  emptyCluster(): ClusterState;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareReplicas(a: { type: string; index: number }, b: { type: string; index: number }): number {
  return compareStrings(a.type, b.type) || a.index - b.index;
}

/** Attained-service band (Tiresias's two queues): 0 up to the threshold, 1 beyond it. */
export function serviceBand(attained: number, config: SchedulerConfig): number {
  return attained > config.demoteAfterWorkerSeconds ? 1 : 0;
}

function compileGroup(
  vectors: VectorTable,
  masks: FeasibilityMasks,
  type: string,
  requests: Resources,
  constraints: PlacementConstraints,
  count: number,
): CompiledGroup {
  const vecId = vectors.idOf(requests);
  const maskId = masks.idFor(constraints);
  return { type, requests, vec: vectors.vector(vecId), maskId, count, shapeKey: vectors.shapeKey(vecId, maskId) };
}

/**
 * A job's signature (its groups' types, shapes and counts) and minimum configuration key, one string
 * each per distinct signature in the pass: thousands of jobs share a few shapes, and a shared string
 * is built once and hashed once by the placement caches that key on it, not once per job. A trie by
 * group, whose nodes hold the strings.
 */
class Signature {
  readonly signature: string;
  readonly minimumKey: string;
  /** Next group: type, then shape key, then count. */
  #next: Map<string, Map<string, Map<number, Signature>>> | undefined;

  constructor(signature: string) {
    this.signature = signature;
    this.minimumKey = `${signature}#min`;
  }

  /** This signature followed by one more group. */
  then(group: CompiledGroup): Signature {
    this.#next ??= new Map();
    let byShape = this.#next.get(group.type);
    if (byShape === undefined) {
      byShape = new Map();
      this.#next.set(group.type, byShape);
    }
    let byCount = byShape.get(group.shapeKey);
    if (byCount === undefined) {
      byCount = new Map();
      byShape.set(group.shapeKey, byCount);
    }
    let next = byCount.get(group.count);
    if (next === undefined) {
      const part = `${group.type}:${group.shapeKey}x${group.count}`;
      next = new Signature(this.signature === '' ? part : `${this.signature}|${part}`);
      byCount.set(group.count, next);
    }
    return next;
  }
}

/** Fixed groups in placement order: PS first (so workers join it), then by type. */
function compareFixedGroups(a: FixedReplicaGroup, b: FixedReplicaGroup): number {
  return Number(isPsType(b.type)) - Number(isPsType(a.type)) || compareStrings(a.type, b.type);
}

/**
 * The fixed groups with replicas, in placement order. Usually the spec's own array (already in
 * that order, every count positive); otherwise sorted by hand, as jobs have a group or three and
 * `Array.prototype.sort` allocates its working state on every call (3,000 jobs per pass).
 */
function liveFixedGroups(groups: readonly FixedReplicaGroup[]): readonly FixedReplicaGroup[] {
  let ready = true;
  for (let i = 0; i < groups.length && ready; i++) {
    ready = groups[i]!.count > 0 && (i === 0 || compareFixedGroups(groups[i - 1]!, groups[i]!) <= 0);
  }
  if (ready) return groups;
  const live: FixedReplicaGroup[] = [];
  for (const g of groups) {
    if (g.count <= 0) continue;
    let k = live.length;
    while (k > 0 && compareFixedGroups(live[k - 1]!, g) > 0) {
      live[k] = live[k - 1]!;
      k--;
    }
    live[k] = g;
  }
  return live;
}

function compileJob(
  js: JobState,
  vectors: VectorTable,
  masks: FeasibilityMasks,
  signatures: Signature,
  clusterTotal: Resources,
  now: number,
  config: SchedulerConfig,
  ranking: BandRanking,
): CompiledJob {
  const spec = js.spec;
  const fixed = liveFixedGroups(spec.fixed).map((g) => compileGroup(vectors, masks, g.type, g.requests, g.constraints, g.count));
  let workers: CompiledWorkers | undefined;
  if (spec.workers !== undefined) {
    const w = spec.workers;
    const declared = Math.max(0, w.min);
    const max = Math.max(declared, w.max);
    const raise = ranking.targetMinimum === true && ranking.declaredMinimumFor?.has(spec.key) !== true;
    const min = raise ? Math.min(max, Math.max(declared, targetMinimum(js, now) ?? declared)) : declared;
    // One object with every field, not a group spread into a copy (3,000 jobs per pass).
    const vecId = vectors.idOf(w.requests);
    const maskId = masks.idFor(w.constraints);
    workers = {
      type: w.type,
      requests: w.requests,
      vec: vectors.vector(vecId),
      maskId,
      count: min,
      shapeKey: vectors.shapeKey(vecId, maskId),
      min,
      max,
      scalingCurve: w.scalingCurve,
    };
  }
  const minimum: ConfigurationItem[] = fixed.map((g) => ({ group: g, count: g.count }));
  if (workers !== undefined && workers.min > 0) minimum.push({ group: workers, count: workers.min });
  const minRequests = minimumRequests(spec);
  const weight = jobWeightFrom(spec, minRequests, clusterTotal, config.weight);
  const starving = js.phase === 'waiting' && isStarving(spec, now, config);
  const logit = effectiveLogit(weight.logit, starving);
  let signature = signatures;
  for (const g of fixed) signature = signature.then(g);
  if (workers !== undefined) signature = signature.then(workers);
  const served = ranking.byAttainedService ? serviceBand(js.attainedWorkerSeconds ?? 0, config) : 0;
  // A diverged job (NaN loss) ranks like a converged one: more workers would only burn more NaNs.
  const converged = ranking.byPhase && (js.progress?.phase === 'Converged' || js.progress?.phase === 'Diverged') ? 1 : 0;
  const band = Math.max(served, converged);
  return {
    state: js,
    key: spec.key,
    priority: spec.priority,
    band,
    served,
    submittedAt: spec.submittedAt,
    logit,
    fixed,
    workers,
    minRequests,
    baseLogit: weight.logit,
    baseWeight: weight.weight,
    starving,
    weight: sigmoid(logit),
    signature: signature.signature,
    minimumKey: signature.minimumKey,
    minimum,
  };
}

function liveReplicas(js: JobState, nodeIndex: ReadonlyMap<string, number>): LiveReplica[] {
  const out: LiveReplica[] = [];
  let sorted = true;
  for (const r of js.replicas) {
    const node = r.node === undefined ? -1 : (nodeIndex.get(r.node) ?? -1);
    const live: LiveReplica =
      r.pending === true
        ? { type: r.type, index: r.index, node, createdAt: r.createdAt, pending: true }
        : { type: r.type, index: r.index, node, createdAt: r.createdAt };
    if (sorted && out.length > 0 && compareReplicas(out[out.length - 1]!, live) > 0) sorted = false;
    out.push(live);
  }
  // Snapshots usually list replicas in this order already.
  return sorted ? out : out.sort(compareReplicas);
}

/** Nodes hosting the job's placed PS replicas, or all its placed fixed replicas' nodes when none is a PS. */
export function anchorNodesOf(fixedReplicas: readonly LiveReplica[]): Set<number> {
  let psPlaced = false;
  for (const r of fixedReplicas) if (r.node >= 0 && isPsType(r.type)) psPlaced = true;
  const anchors = new Set<number>();
  for (const r of fixedReplicas) if (r.node >= 0 && (!psPlaced || isPsType(r.type))) anchors.add(r.node);
  return anchors;
}

/** A replica's requests by its type: the worker group's, else the last fixed group's of that type. */
export function groupVec(job: CompiledJob, type: string): Float64Array | undefined {
  if (job.workers?.type === type) return job.workers.vec;
  for (let i = job.fixed.length - 1; i >= 0; i--) if (job.fixed[i]!.type === type) return job.fixed[i]!.vec;
  return undefined;
}

/** Which demotions rank a job below the others of its class (`ours`' toggles; none for the other policies). */
export interface BandRanking {
  /** `demoteByAttainedService`. */
  readonly byAttainedService: boolean;
  /** `demoteConverged`. */
  readonly byPhase: boolean;
  /** `qoeTargetAsMinimum`: a throughput target's size is the job's minimum (qoe-minimum.ts). */
  readonly targetMinimum?: boolean;
  /** With `targetMinimum`: jobs (by key) that keep their declared minimum all the same. */
  readonly declaredMinimumFor?: ReadonlySet<string>;
}

export const NO_BANDS: BandRanking = { byAttainedService: false, byPhase: false };

/** Builds the model of one pass. Never mutates the snapshot. */
export function buildPassModel(snapshot: ClusterSnapshot, config: SchedulerConfig, ranking: BandRanking = NO_BANDS): PassModel {
  const nodes = canonicalNodes(snapshot);
  const dims = new ResourceIndex(collectResourceNames(snapshot));
  const masks = new FeasibilityMasks(nodes);
  const clusterTotal = clusterAllocatable(nodes);
  const nodeIndex = new Map<string, number>();
  nodes.forEach((n, i) => nodeIndex.set(n.name, i));

  const unfinished = snapshot.jobs.filter((j) => j.phase !== 'finished').sort((a, b) => compareStrings(a.spec.key, b.spec.key));
  const jobs = new Map<string, CompiledJob>();
  const vectors = new VectorTable(dims);
  const signatures = new Signature('');
  for (const js of unfinished)
    jobs.set(js.spec.key, compileJob(js, vectors, masks, signatures, clusterTotal, snapshot.now, config, ranking));

  const base = clusterBase(dims, nodes, nodeIndex, snapshot.otherPods);
  const loads: BoundLoad[] = [];
  const running: RunningJob[] = [];
  for (const job of jobs.values()) {
    if (job.state.phase !== 'running') continue;
    const replicas = liveReplicas(job.state, nodeIndex);
    const workerType = job.workers?.type;
    const fixedReplicas: LiveReplica[] = [];
    const workers: LiveReplica[] = [];
    for (const r of replicas) {
      const vec = groupVec(job, r.type);
      // A replica of a type the spec no longer has holds resources we cannot know: count nothing.
      if (r.node >= 0 && vec !== undefined) loads.push({ node: r.node, vec });
      if (r.type === workerType) workers.push(r);
      else fixedReplicas.push(r);
    }
    const podless = new Set<number>();
    for (const w of workers) if (w.pending === true) podless.add(w.index);
    running.push({
      job,
      fixedReplicas,
      workers,
      anchorNodes: anchorNodesOf(fixedReplicas),
      removedIndices: new Set(),
      podlessIndices: podless,
      scaledInThisPass: false,
      admittedThisPass: false,
    });
  }

  const state = new ClusterState(dims, nodes, masks, base, loads, nodeIndex);
  let empty: ClusterState | undefined;
  const waiting = [...jobs.values()].filter((j) => j.state.phase === 'waiting').sort(compareRank);
  return {
    now: snapshot.now,
    config,
    state,
    jobs,
    waiting,
    running,
    runningByKey: new Map(running.map((r) => [r.job.key, r])),
    emptyCluster: () => (empty ??= new ClusterState(dims, nodes, masks, base, [], nodeIndex)),
  };
}
