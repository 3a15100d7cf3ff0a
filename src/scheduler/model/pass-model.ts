// Builds the model of one pass from a snapshot: each job compiled once (its groups' vectors, masks
// and minimum configuration, its rank key), the running jobs' live replicas, and the cluster state.

import { targetMinimum } from './qoe-minimum.ts';
import type { SchedulerConfig } from '../config.ts';
import { ClusterState, canonicalNodes, clusterBase, collectResourceNames } from './cluster-state.ts';
import { FeasibilityMasks } from './feasibility-masks.ts';
import type { BoundLoad } from './cluster-state.ts';
import { ResourceIndex, VectorTable } from './resource-vector.ts';
import { effectiveLogit, isStarving } from '../ranking/starvation.ts';
import type { ClusterSnapshot, FixedReplicaGroup, JobState, PlacementConstraints, Resources } from '../types.ts';
import { clusterAllocatable, compareRank, jobWeightFrom, minimumRequests, sigmoid } from '../ranking/weight.ts';
import {
  anchorNodesOf,
  compareReplicas,
  compareStrings,
  groupVec,
  isPsType,
  NO_BANDS,
  serviceBand,
  type BandRanking,
  type CompiledGroup,
  type CompiledJob,
  type CompiledWorkers,
  type ConfigurationItem,
  type LiveReplica,
  type PassModel,
  type RunningJob,
} from './job-model.ts';

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
