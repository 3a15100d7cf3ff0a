// The data a workload model hands to the simulator and to the real-cluster training emulator: what
// a job asks for (its TFJob shape) and how fast it progresses from where its replicas run.
import type { QoeTarget, Resources } from '../../src/scheduler/types.ts';
import type { PhillyApp } from './philly/app.ts';
import type { ProgressCurve } from './progress-curve.ts';

/**
 * Where a job's *running* replicas are: one node name per running PS and per running worker.
 * Replicas still Pending or starting up are left out by the caller; order does not matter.
 */
export interface ReplicaPlacement {
  readonly ps: readonly string[];
  readonly workers: readonly string[];
}

/** kod2-paper: asynchronous PS training, rates in images per second. */
export interface Kod2PaperThroughput {
  readonly kind: 'kod2-paper';
  /** Images/s of one worker sharing a node with one of its job's PS. */
  readonly workerImagesPerSecond: number;
  /** Fraction of a worker's rate lost when no PS of its job is on its node (0..1). */
  readonly remotePenalty: number;
  /** Most images/s one PS can serve, summed over the job's workers (PS saturation). */
  readonly psCapacityImagesPerSecond: number;
}

/** Philly: measured step times of a synchronous job at a fixed global batch size; rates in iterations/s. */
export interface PhillyThroughput {
  readonly kind: 'philly';
  readonly app: PhillyApp;
  readonly globalBatch: number;
}

export type ThroughputModel = Kod2PaperThroughput | PhillyThroughput;

export interface WorkloadJob {
  readonly name: string;
  /** Arrival time in seconds from the start of the scenario. */
  readonly submitSeconds: number;
  readonly ps: { readonly count: number; readonly requests: Resources };
  readonly workers: { readonly requests: Resources; readonly min: number; readonly max: number };
  /** Total work to finish, in `workUnit`s. */
  readonly work: number;
  readonly workUnit: 'images' | 'iterations';
  readonly throughput: ThroughputModel;
  /** What the job trains, for reports: e.g. "vgg-16 b32" or "cifar10 b4096". */
  readonly label: string;
  /**
   * The evaluation metric the job prints as its work crosses each point (progress-curve.ts);
   * absent: the job prints none (scheduled as without progress information).
   */
  readonly curve?: ProgressCurve;
  /**
   * The performance target the job states (targets.ts), in its own work units: steps are `workUnit`s,
   * a deadline is in ms of the scenario's clock (0 = its start).
   */
  readonly qoe?: QoeTarget;
  /**
   * The work the job declares it plans (plans.ts), in `workUnit`s: at least `work` (early stopping
   * ends a job before its plan); absent: it declares none.
   */
  readonly plannedWork?: number;
  /** The team that submits the job (teams.ts), for per-team figures; absent: none. */
  readonly team?: string;
  /** The queue (`QueueSpec.name`) whose quota the job is charged to; absent: the single global queue. */
  readonly queue?: string;
}

/** Further nodes of another shape, named `<prefix>-0` … (e.g. CPU-only nodes beside GPU nodes). */
export interface NodePool {
  readonly prefix: string;
  readonly count: number;
  readonly allocatable: Resources;
}

/**
 * `nodeCount` nodes named `node-0` … with the same allocatable (the main pool: the ideal runtimes
 * of the lower bounds are computed on it), plus optional pools of other shapes.
 */
export interface ClusterShape {
  readonly nodeCount: number;
  readonly allocatable: Resources;
  readonly extraPools?: readonly NodePool[];
}

/** The main pool's node names. */
export function nodeNames(cluster: ClusterShape): string[] {
  return Array.from({ length: cluster.nodeCount }, (_, i) => `node-${i}`);
}

/** Every node of the cluster, the main pool first. */
export function clusterNodes(cluster: ClusterShape): { readonly name: string; readonly allocatable: Resources }[] {
  const main = nodeNames(cluster).map((name) => ({ name, allocatable: cluster.allocatable }));
  const extra = (cluster.extraPools ?? []).flatMap((pool) =>
    Array.from({ length: pool.count }, (_, i) => ({ name: `${pool.prefix}-${i}`, allocatable: pool.allocatable })),
  );
  return [...main, ...extra];
}

/** Total allocatable of every node, per resource. */
export function clusterCapacity(cluster: ClusterShape): Resources {
  const total: Record<string, number> = {};
  for (const node of clusterNodes(cluster)) {
    for (const [name, amount] of Object.entries(node.allocatable)) total[name] = (total[name] ?? 0) + amount;
  }
  return total;
}
