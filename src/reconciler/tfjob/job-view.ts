// Facts derived once per reconcile from the defaulted job: identity, replica counts in effect
// (elastic workers included), and which TF_CONFIG form the pods get.

import type { DefaultedReplicaSpec, DefaultedTFJob } from '../../api/v1/defaults.ts';
import type { ElasticBounds } from '../../api/v1/elastic.ts';
import { MAX_ELASTIC_WORKERS, needsAllWorkers, resolveElastic } from '../../api/v1/elastic.ts';
import { REPLICA_TYPES, REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { SchedulingStatus, TFJob } from '../../api/v1/schema.ts';
import type { ClusterLayout } from './tf-config.ts';
import { elasticTfConfig, isDistributed, normalTfConfig, sparseTfConfig } from './tf-config.ts';

export interface JobView {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  /** Canonical type → defaulted spec, in tf-operator's status order (Chief, Evaluator, Master, PS, Worker). */
  readonly replicaSpecs: Readonly<Record<string, DefaultedReplicaSpec>>;
  readonly types: readonly string[];
  readonly elastic?: ElasticBounds;
  /** Replicas in effect per type: `replicas`, or for an elastic Worker the current target. */
  readonly replicas: Readonly<Record<string, number>>;
  readonly distributed: boolean;
  /**
   * tf-operator's sparse (dynamic-worker) TF_CONFIG: `enableDynamicWorker` on a job that is not
   * elastic. Elastic jobs get the elastic form (every worker slot up to `elastic.max`) instead.
   */
  readonly sparse: boolean;
  /** Worker failures do not fail the job: `enableDynamicWorker`, or elastic. */
  readonly tolerateWorkerFailures: boolean;
  /** Elastic (our extension, unlike tf-operator's dynamic workers): worker 0 failing fails a job without a chief. */
  readonly worker0FailureFailsJob: boolean;
  readonly layout: ClusterLayout;
  /** Elastic worker slots given up after their pod failed under Never (given-up-slots.ts); TF_CONFIG still lists them. */
  readonly givenUpWorkerSlots?: readonly number[];
}

export function clamp(value: number, bounds: ElasticBounds): number {
  return Math.min(bounds.max, Math.max(bounds.min, value));
}

/**
 * Current size of an elastic worker group: the scheduler's decision for this pass, else the one recorded
 * in `status.scheduling.workers.current`, else `maxReplicas` (no scheduler: run as large as allowed);
 * always clamped to the bounds. `Worker.replicas` plays no part.
 */
export function elasticWorkerTarget(bounds: ElasticBounds, decided: number | undefined, recorded: SchedulingStatus | undefined): number {
  return clamp(decided ?? recorded?.workers?.current ?? bounds.max, bounds);
}

/** How the operator is configured to size elastic jobs; the reconciler and the scheduler must agree. */
export interface ElasticOptions {
  /**
   * Elastic bounds for jobs that declare none (operator flags --default-min/max-workers; 0 stands for
   * Worker.replicas). Applied only when it makes the job elastic (min < max); absent = fixed size.
   */
  readonly defaultElastic?: { readonly min: number; readonly max: number };
  /**
   * The most workers an elastic job may grow to, whatever its maximum says (--max-workers-per-job;
   * never below its minimum). A `Worker.replicas` of 2^31−1 would otherwise take every pod slot.
   * MAX_ELASTIC_WORKERS bounds it in any case: every replica's TF_CONFIG lists every worker slot.
   */
  readonly workerLimit?: number;
}

export function buildJobView(
  raw: TFJob,
  job: DefaultedTFJob,
  options: ElasticOptions & {
    readonly clusterDomain?: string;
    readonly workers?: number;
  },
): JobView {
  const name = job.metadata.name;
  const namespace = job.metadata.namespace ?? 'default';
  const replicaSpecs: Record<string, DefaultedReplicaSpec> = {};
  for (const type of REPLICA_TYPES) {
    const spec = job.spec.tfReplicaSpecs[type];
    if (spec) replicaSpecs[type] = spec;
  }
  const resolution = resolveElastic(raw);
  const workerSpec = replicaSpecs[REPLICA_TYPE_WORKER];
  let elastic = resolution.elastic && workerSpec ? resolution.bounds : undefined;
  if (!resolution.elastic && workerSpec && options.defaultElastic !== undefined) {
    const min = options.defaultElastic.min > 0 ? options.defaultElastic.min : workerSpec.replicas;
    const max = Math.max(min, options.defaultElastic.max > 0 ? options.defaultElastic.max : workerSpec.replicas);
    // A default never makes a job elastic that could not be (its minimum above the slot limit).
    if (min >= 1 && min < max && min <= MAX_ELASTIC_WORKERS) elastic = { min, max };
  }
  // Admission keeps an elastic minimum within MAX_ELASTIC_WORKERS, so the clamped max never exceeds it.
  const workerLimit = Math.min(options.workerLimit ?? MAX_ELASTIC_WORKERS, MAX_ELASTIC_WORKERS);
  if (elastic !== undefined && elastic.max > workerLimit) {
    elastic = { min: elastic.min, max: Math.max(elastic.min, workerLimit) };
  }
  // A chief that waits for every listed worker slot would sit Running without training below the
  // maximum: such a job is admitted with all its workers or not at all, and never scaled in.
  if (elastic !== undefined && needsAllWorkers(raw)) elastic = { min: elastic.max, max: elastic.max };
  const replicas: Record<string, number> = {};
  for (const [type, spec] of Object.entries(replicaSpecs)) {
    replicas[type] =
      type === REPLICA_TYPE_WORKER && elastic ? elasticWorkerTarget(elastic, options.workers, job.status?.scheduling) : spec.replicas;
  }
  const sparse = job.spec.enableDynamicWorker && elastic === undefined;
  return {
    name,
    namespace,
    uid: job.metadata.uid ?? '',
    replicaSpecs,
    types: Object.keys(replicaSpecs),
    ...(elastic ? { elastic } : {}),
    replicas,
    distributed: isDistributed(replicaSpecs, elastic?.max),
    sparse,
    tolerateWorkerFailures: job.spec.enableDynamicWorker || elastic !== undefined,
    worker0FailureFailsJob: elastic !== undefined,
    layout: {
      jobName: name,
      namespace,
      replicaSpecs,
      ...(options.clusterDomain ? { clusterDomain: options.clusterDomain } : {}),
    },
  };
}

/** TF_CONFIG for one replica, or undefined when the job is not distributed. */
export function tfConfigFor(view: JobView, replicaType: string, index: number): string | undefined {
  if (!view.distributed) return undefined;
  if (view.elastic) return elasticTfConfig(view.layout, replicaType, index, view.elastic.max);
  return view.sparse ? sparseTfConfig(view.layout, replicaType, index) : normalTfConfig(view.layout, replicaType, index);
}

/** `current/min/max` of the worker group, e.g. `2/1/4` (fixed-size jobs: `n/n/n`). */
export function workersSummary(current: number, min: number, max: number): string {
  return `${current}/${min}/${max}`;
}
