// Jobs as one pass sees them: specs compiled to resource vectors and feasibility masks, replicas
// of running jobs resolved to node indices, and each job's rank. Built once per pass from the
// snapshot, in canonical order, so the order of the snapshot's arrays never matters (pass-model.ts).

import type { SchedulerConfig } from '../config.ts';
import type { ClusterState } from './cluster-state.ts';
import type { JobState, Resources } from '../types.ts';
import type { RankKey } from '../ranking/weight.ts';

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

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareReplicas(a: { type: string; index: number }, b: { type: string; index: number }): number {
  return compareStrings(a.type, b.type) || a.index - b.index;
}

/** Attained-service band (Tiresias's two queues): 0 up to the threshold, 1 beyond it. */
export function serviceBand(attained: number, config: SchedulerConfig): number {
  return attained > config.demoteAfterWorkerSeconds ? 1 : 0;
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
