// The simulator's mutable picture of the cluster: jobs, their replicas, node usage. Kept apart from
// the event loop so that applying a Plan (and refusing an impossible one) reads on its own.
import { measuredRate, type RateState } from '../../src/progress/signals/rate.ts';
import { namespacedKey } from '../../src/runtime/store.ts';
import type {
  JobPhase,
  JobProgress,
  JobSpec,
  NodeInfo,
  Plan,
  QueueSpec,
  ReplicaInstance,
  Resources,
  StepRate,
} from '../../src/scheduler/types.ts';
import type { ClusterShape, ReplicaPlacement, WorkloadJob } from '../workloads/model.ts';
import { clusterCapacity, clusterNodes } from '../workloads/model.ts';
import { fewestNodesRate } from '../workloads/ideal.ts';
import { JobSignal } from './job-signal.ts';
import type { OracleJobState, OracleSnapshot } from './policies/oracles.ts';
import { addResources, fitsIn, formatResources } from '../workloads/resources.ts';

export const PS = 'PS';
export const WORKER = 'Worker';
const NAMESPACE = 'sim';

/** The core asked for something the cluster or the job cannot do: a bug to fix, never to absorb. */
export class PlanViolation extends Error {
  override name = 'PlanViolation';
}

export interface SimReplica {
  readonly type: string;
  readonly index: number;
  readonly requests: Resources;
  /** Seconds. */
  readonly createdAt: number;
  node: string | undefined;
  boundAt: number | undefined;
}

export interface SimJob {
  readonly workload: WorkloadJob;
  readonly spec: JobSpec;
  phase: 'future' | JobPhase;
  readonly replicas: Map<string, SimReplica>;
  remaining: number;
  rate: number;
  started: number | undefined;
  /** First time the job progressed (all PS and a worker ready). */
  firstProgress: number | undefined;
  finished: number | undefined;
  workersMin: number | undefined;
  workersMax: number | undefined;
  preemptedWorkers: number;
  scaleOuts: number;
  /** Times the whole job was suspended back to the queue. */
  suspensions: number;
  /** When it last went back to the queue (s; its last suspension): where its longest queue stay starts. */
  requeuedAt: number | undefined;
  /** The longest time (s) it waited in the queue at once: from submission or a suspension to its admission. */
  longestQueueStay: number;
  /** Bound worker-seconds so far (attained service, as the operator counts it). */
  attainedWorkerSeconds: number;
  /** Rate at max workers on the fewest nodes: remaining / maxRate is what oracles are shown. */
  readonly maxRate: number;
  /** The progress lines the job prints and the phase the operator reads from them. */
  readonly signal: JobSignal;
  /** Its step rate as the operator measures it from those lines (jobs with a performance target). */
  steps: RateState | undefined;
  /** Seconds from submission to finish (or the horizon) a targeted job was tracked, and met its target. */
  qoeTrackedSeconds: number;
  qoeRunningSeconds: number;
  qoeMetSeconds: number;
}

export interface PodCounters {
  created: number;
  /** Removed by the operator before finishing: scale-in, and never-bound pods of a finished job. */
  deleted: number;
  /** Bound pods that exited 0 when their job finished. */
  succeeded: number;
}

function replicaKey(type: string, index: number): string {
  return `${type}-${index}`;
}

export function jobKey(name: string): string {
  return namespacedKey(NAMESPACE, name);
}

function toJobSpec(job: WorkloadJob, scalingCurve: readonly number[] | undefined, suspendable: boolean): JobSpec {
  const workers = { type: WORKER, requests: job.workers.requests, constraints: {}, min: job.workers.min, max: job.workers.max };
  return {
    key: jobKey(job.name),
    priority: 0,
    submittedAt: job.submitSeconds * 1000,
    fixed: [{ type: PS, count: job.ps.count, requests: job.ps.requests, constraints: {} }],
    workers: scalingCurve === undefined ? workers : { ...workers, scalingCurve },
    ...(suspendable ? { suspendable } : {}),
    ...(job.qoe === undefined ? {} : { qoe: job.qoe }),
    ...(job.queue === undefined ? {} : { queue: job.queue }),
  };
}

/** What a job declaring its scaling curve would write: its rate with 1..max workers on the fewest nodes. */
export function declaredScalingCurve(job: WorkloadJob, cluster: ClusterShape): number[] {
  return Array.from({ length: job.workers.max }, (_, i) => fewestNodesRate(job, i + 1, cluster));
}

function progressOf(job: SimJob, now: number): { progress?: JobProgress } {
  const progress = job.signal.view(now);
  return progress === undefined ? {} : { progress };
}

function stepRateOf(job: SimJob): { stepRate?: StepRate } {
  if (job.spec.qoe === undefined) return {};
  const stepRate = measuredRate(job.steps);
  return stepRate === undefined ? {} : { stepRate };
}

export class ClusterState {
  readonly nodes: readonly NodeInfo[];
  readonly capacity: Resources;
  readonly jobs: readonly SimJob[];
  readonly pods: PodCounters = { created: 0, deleted: 0, succeeded: 0 };
  private readonly byKey: ReadonlyMap<string, SimJob>;
  private readonly used = new Map<string, Resources>();
  private readonly allocatable: ReadonlyMap<string, Resources>;

  /** Queues with quotas the core is told about (empty: the single global queue). */
  readonly queues: readonly QueueSpec[];

  constructor(
    cluster: ClusterShape,
    jobs: readonly WorkloadJob[],
    declareScalingCurves = false,
    suspendable = false,
    queues: readonly QueueSpec[] = [],
  ) {
    this.queues = queues;
    this.nodes = clusterNodes(cluster).map(({ name, allocatable }) => ({
      name,
      allocatable,
      labels: { 'kubernetes.io/hostname': name },
      taints: [],
      unschedulable: false,
      ready: true,
    }));
    this.capacity = clusterCapacity(cluster);
    this.allocatable = new Map(this.nodes.map((n) => [n.name, n.allocatable]));
    this.jobs = jobs.map((workload) => ({
      workload,
      spec: toJobSpec(workload, declareScalingCurves ? declaredScalingCurve(workload, cluster) : undefined, suspendable),
      phase: 'future',
      replicas: new Map(),
      remaining: workload.work,
      rate: 0,
      started: undefined,
      firstProgress: undefined,
      finished: undefined,
      workersMin: undefined,
      workersMax: undefined,
      preemptedWorkers: 0,
      scaleOuts: 0,
      suspensions: 0,
      requeuedAt: undefined,
      longestQueueStay: 0,
      attainedWorkerSeconds: 0,
      maxRate: fewestNodesRate(workload, workload.workers.max, cluster),
      signal: new JobSignal(workload),
      steps: undefined,
      qoeTrackedSeconds: 0,
      qoeRunningSeconds: 0,
      qoeMetSeconds: 0,
    }));
    this.byKey = new Map(this.jobs.map((j) => [j.spec.key, j]));
    if (this.byKey.size !== this.jobs.length) throw new Error('job names must be unique');
  }

  /** `oracle`: also tell each job's remaining work (policies registered as oracles only). */
  snapshot(now: number, oracle = false): OracleSnapshot {
    return {
      now: now * 1000,
      nodes: this.nodes,
      otherPods: [],
      ...(this.queues.length > 0 ? { queues: this.queues } : {}),
      jobs: this.jobs
        .filter((j) => j.phase === 'waiting' || j.phase === 'running')
        .map((j): OracleJobState => ({
          spec: j.spec,
          phase: j.phase as JobPhase,
          replicas: [...j.replicas.values()].map((r): ReplicaInstance => ({
            type: r.type,
            index: r.index,
            node: r.node,
            createdAt: r.createdAt * 1000,
          })),
          attainedWorkerSeconds: j.attainedWorkerSeconds,
          ...progressOf(j, now),
          ...stepRateOf(j),
          ...(oracle ? { oracleRemainingSeconds: j.maxRate > 0 ? j.remaining / j.maxRate : Number.POSITIVE_INFINITY } : {}),
        })),
    };
  }

  /** Suspensions and scale-ins first (they make the room), then admissions, scale-outs, bindings: the core's order. */
  apply(plan: Plan, now: number): void {
    for (const suspension of plan.suspend) {
      const job = this.runningJob(suspension.job, 'suspension');
      for (const replica of job.replicas.values()) {
        this.release(replica);
        if (replica.type === WORKER) job.preemptedWorkers += 1;
        this.pods.deleted += 1;
      }
      job.replicas.clear();
      job.phase = 'waiting';
      job.rate = 0;
      job.suspensions += 1;
      job.requeuedAt = now;
    }
    const moved = new Set<SimJob>();
    for (const scaleIn of plan.scaleIn) {
      const job = this.runningJob(scaleIn.job, 'scale in');
      for (const r of scaleIn.remove) {
        const replica = job.replicas.get(replicaKey(r.type, r.index));
        if (replica?.type !== WORKER) throw new PlanViolation(`scale-in of ${scaleIn.job}: no worker ${r.type}-${r.index}`);
        this.release(replica);
        job.replicas.delete(replicaKey(r.type, r.index));
        job.preemptedWorkers += 1;
        this.pods.deleted += 1;
      }
      // A move (relocated) is given back by the plan's scale-out: checked once that is applied.
      if (scaleIn.relocated === true) moved.add(job);
      else this.checkMinimum(job, 'scale-in');
    }
    for (const admission of plan.admit) {
      const job = this.byKey.get(admission.job);
      if (job?.phase !== 'waiting') throw new PlanViolation(`admission of ${admission.job}, which is not waiting`);
      job.phase = 'running';
      job.longestQueueStay = Math.max(job.longestQueueStay, now - (job.requeuedAt ?? job.workload.submitSeconds));
      for (const r of admission.replicas) this.create(job, r, now);
      const ps = [...job.replicas.values()].filter((r) => r.type === PS).length;
      const workers = this.workerCount(job);
      const { min, max } = job.workload.workers;
      if (ps !== job.workload.ps.count || workers < min || workers > max) {
        throw new PlanViolation(
          `admission of ${admission.job} with ${ps} PS and ${workers} workers (needs ${job.workload.ps.count} PS, ${min}..${max} workers)`,
        );
      }
    }
    for (const scaleOut of plan.scaleOut) {
      const job = this.runningJob(scaleOut.job, 'scale out');
      for (const r of scaleOut.add) {
        if (r.type !== WORKER) throw new PlanViolation(`scale-out of ${scaleOut.job} adds a ${r.type}`);
        this.create(job, r, now);
        job.scaleOuts += 1;
      }
      if (this.workerCount(job) > job.workload.workers.max) {
        throw new PlanViolation(`scale-out takes ${scaleOut.job} above its maximum ${job.workload.workers.max} workers`);
      }
    }
    for (const job of moved) this.checkMinimum(job, 'relocation');
    for (const binding of plan.bind) {
      const job = this.runningJob(binding.job, 'bind');
      const replica = job.replicas.get(replicaKey(binding.replica.type, binding.replica.index));
      if (replica === undefined || replica.node !== undefined) {
        throw new PlanViolation(`binding of ${binding.job} ${binding.replica.type}-${binding.replica.index}: no such pending replica`);
      }
      const node = binding.replica.node;
      if (node === undefined) throw new PlanViolation(`binding of ${binding.job} without a node`);
      this.bind(job, replica, node, now);
    }
  }

  /** The job's work is done: its pods exit 0 (pending ones are deleted), its resources return. */
  finish(job: SimJob, now: number): void {
    for (const replica of job.replicas.values()) {
      if (replica.node === undefined) this.pods.deleted += 1;
      else this.pods.succeeded += 1;
      this.release(replica);
    }
    job.replicas.clear();
    job.phase = 'finished';
    job.finished = now;
    job.remaining = 0;
    job.rate = 0;
  }

  workerCount(job: SimJob): number {
    let n = 0;
    for (const r of job.replicas.values()) if (r.type === WORKER) n += 1;
    return n;
  }

  boundWorkerCount(job: SimJob): number {
    let n = 0;
    for (const r of job.replicas.values()) if (r.type === WORKER && r.node !== undefined) n += 1;
    return n;
  }

  /** Nodes of the replicas that are bound and past their start-up delay. */
  readyPlacement(job: SimJob, now: number, startupSeconds: number): ReplicaPlacement {
    const ps: string[] = [];
    const workers: string[] = [];
    for (const r of job.replicas.values()) {
      if (r.node === undefined || r.boundAt === undefined || r.boundAt + startupSeconds > now) continue;
      (r.type === PS ? ps : workers).push(r.node);
    }
    return { ps, workers };
  }

  /** Requests of every bound replica in the cluster. */
  allocated(): Resources {
    let total: Resources = {};
    for (const used of this.used.values()) total = addResources(total, used);
    return total;
  }

  /** Resources held by bound replicas of `job`. */
  heldBy(job: SimJob): Resources {
    let held: Resources = {};
    for (const r of job.replicas.values()) if (r.node !== undefined) held = addResources(held, r.requests);
    return held;
  }

  private checkMinimum(job: SimJob, what: string): void {
    const workers = this.workerCount(job);
    if (workers < job.workload.workers.min) {
      throw new PlanViolation(`${what} leaves ${job.spec.key} with ${workers} workers, below its minimum ${job.workload.workers.min}`);
    }
  }

  private runningJob(key: string, what: string): SimJob {
    const job = this.byKey.get(key);
    if (job?.phase !== 'running') throw new PlanViolation(`${what} of ${key}, which is not running`);
    return job;
  }

  private create(job: SimJob, r: ReplicaInstance, now: number): void {
    const key = replicaKey(r.type, r.index);
    if (r.type !== PS && r.type !== WORKER) throw new PlanViolation(`${job.spec.key}: unknown replica type ${r.type}`);
    if (job.replicas.has(key)) throw new PlanViolation(`${job.spec.key}: replica ${key} created twice`);
    const requests = r.type === PS ? job.workload.ps.requests : job.workload.workers.requests;
    const replica: SimReplica = { type: r.type, index: r.index, requests, createdAt: now, node: undefined, boundAt: undefined };
    job.replicas.set(key, replica);
    this.pods.created += 1;
    if (r.node !== undefined) this.bind(job, replica, r.node, now);
  }

  private bind(job: SimJob, replica: SimReplica, node: string, now: number): void {
    const allocatable = this.allocatable.get(node);
    if (allocatable === undefined) throw new PlanViolation(`${job.spec.key}: unknown node ${node}`);
    const after = addResources(this.used.get(node) ?? {}, replica.requests);
    if (!fitsIn(after, allocatable)) {
      throw new PlanViolation(
        `${job.spec.key} ${replica.type}-${replica.index} does not fit on ${node}: would use ${formatResources(after)} of ${formatResources(allocatable)}`,
      );
    }
    this.used.set(node, after);
    replica.node = node;
    replica.boundAt = now;
    job.started ??= now;
  }

  private release(replica: SimReplica): void {
    if (replica.node === undefined) return;
    this.used.set(replica.node, addResources(this.used.get(replica.node) ?? {}, replica.requests, -1));
  }
}
