// The public contract of the scheduling core. The core is pure and deterministic: no I/O, no clock
// reads (time is `ClusterSnapshot.now`), no Kubernetes client types. The controller builds a
// snapshot from its informer caches; the simulator builds one from its own state. Both apply the
// returned Plan.

/**
 * Resource amounts by Kubernetes resource name. Canonical units: `cpu` in millicores, `memory` and
 * `ephemeral-storage` in bytes, every other resource (e.g. `nvidia.com/gpu`, `pods`) in whole units.
 * A missing key means zero.
 */
export type Resources = Readonly<Record<string, number>>;

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: TaintEffect;
}

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values?: readonly string[];
}

/** A required node-affinity term; terms are ORed, requirements within a term are ANDed. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  /** Only the `metadata.name` field is supported, as in Kubernetes. */
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** What a pod template says about where it may run (everything the kubelet does not check for us). */
export interface PlacementConstraints {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly requiredNodeAffinity?: readonly NodeSelectorTerm[];
  readonly tolerations?: readonly Toleration[];
}

export interface NodeInfo {
  readonly name: string;
  readonly allocatable: Resources;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly unschedulable: boolean;
  readonly ready: boolean;
}

/** A non-terminated pod bound to a node that is not one of the managed jobs' replicas (it still uses capacity). */
export interface OtherPod {
  /** `namespace/name`. */
  readonly key: string;
  readonly node: string;
  readonly requests: Resources;
}

/** `PS`, `Worker`, `Chief`, `Master`, `Evaluator`, or any other key a TFJob uses. */
export type ReplicaType = string;

export interface ReplicaGroupSpec {
  readonly type: ReplicaType;
  /** Requests of one replica (sum of its containers, init containers taken into account by the caller). */
  readonly requests: Resources;
  readonly constraints: PlacementConstraints;
}

export interface FixedReplicaGroup extends ReplicaGroupSpec {
  readonly count: number;
}

export interface WorkerGroup extends ReplicaGroupSpec {
  readonly min: number;
  readonly max: number;
  /**
   * Optional scaling curve, declared by the job or measured by the operator: element i is the
   * job's throughput (any unit, e.g. steps/s) with i + 1 workers. When present and other jobs
   * wait, the `ours` policy stops scaling out where one more worker adds less than
   * `kneeMinMarginalGain` × the one-worker throughput. Counts beyond the curve's end are not
   * limited by it.
   */
  readonly scalingCurve?: readonly number[];
}

export interface JobSpec {
  /** `namespace/name`; unique, and the final tie-break everywhere. */
  readonly key: string;
  /** Value of the job's PriorityClass (admin-controlled); 0 when it has none. */
  readonly priority: number;
  /** t_j: when the job first entered the waiting queue (ms). Never reset. */
  readonly submittedAt: number;
  /** PS, Chief/Master, Evaluator, ...: created at admission, never scaled, never preempted. */
  readonly fixed: readonly FixedReplicaGroup[];
  /** The scalable `Worker` group; absent for jobs without workers. `min === max` means not elastic. */
  readonly workers?: WorkerGroup;
  /**
   * The job resumes from its own checkpoints, so a policy may suspend it whole (`Plan.suspend`) and
   * admit it again later. Opt-in: absent means never (its PS would lose its state).
   */
  readonly suspendable?: boolean;
  /** The user's performance target (DQoES), if any; jobs without one are scheduled as before. */
  readonly qoe?: QoeTarget;
  /**
   * The queue (`QueueSpec.name`) whose quota the job is charged to; absent: none (the single global
   * queue, no quota). A name no queue in the snapshot has keeps the job waiting, saying so.
   */
  readonly queue?: string;
  /**
   * Why the job may not be admitted at all, decided outside the core (e.g. the namespace queue it
   * names does not exist): it waits with this reason and nothing else happens to it.
   */
  readonly inadmissible?: string;
}

/**
 * A queue with a quota (quota.ts; Kueue's ClusterQueue in its vocabulary): the resources its jobs
 * may hold at once. Resources its quota does not name are not limited by it.
 */
export interface QueueSpec {
  readonly name: string;
  /** Queues of one cohort lend each other the quota they do not use; absent: none (no borrowing). */
  readonly cohort?: string;
  readonly nominalQuota: Resources;
  /** At most this much above the nominal quota, per resource (absent resource: no limit but the cohort's). */
  readonly borrowingLimit?: Resources;
  /** At most this much of the nominal quota lent to the cohort, per resource (absent resource: all of it). */
  readonly lendingLimit?: Resources;
  /** Fair-sharing weight (> 0): borrowed capacity is shared in proportion to it. */
  readonly weight: number;
}

/**
 * A job's stated performance target (DQoES; docs/tfjob-extensions.md): at most one of
 * `stepsPerSecond` and `deadline` (a seconds-per-step target arrives inverted), and/or `metric`.
 */
export interface QoeTarget {
  /** Throughput target: global training steps per second. */
  readonly stepsPerSecond?: number;
  /** Completion deadline (ms since the epoch) and the global step the job ends at. */
  readonly deadline?: { readonly at: number; readonly totalSteps: number };
  /** α: a measured rate within ±α × the required one counts as satisfied. */
  readonly tolerance: number;
  /** β: the share of the ahead jobs' workers one pass may move at most. */
  readonly adjustStep: number;
  /**
   * The metric value at which training is good enough, and what then: `Shrink` to the minimum
   * workers (the core does it, `JobProgress.targetReached`), or `Stop` (the controller ends the job).
   */
  readonly metric?: { readonly value: number; readonly onReached: 'Shrink' | 'Stop' };
}

/**
 * The job's own step rate, from the steps its progress signal reports, measured while it ran with
 * a constant number of workers (`workers`): a rate measured with another worker count says nothing
 * about the present one, and the core ignores it.
 */
export interface StepRate {
  readonly stepsPerSecond: number;
  /** Latest global step reported. */
  readonly step: number;
  readonly workers: number;
  /** The measurement's span (ms). */
  readonly from: number;
  readonly to: number;
}

export interface ReplicaInstance {
  readonly type: ReplicaType;
  readonly index: number;
  /** Bound node, or undefined while Pending (only the `tf-operator` baseline leaves pods unbound). */
  readonly node?: string;
  /** When this replica was created (ms); used by the scale-in cool-down after a scale-out. */
  readonly createdAt?: number;
  /**
   * Placed by an earlier pass, its pod not created yet (the operator's create may be in flight). It
   * holds its room but is never removed: a create cannot be recalled, so the room it would free
   * could end up holding two pods.
   */
  readonly pending?: boolean;
}

export type JobPhase = 'waiting' | 'running' | 'finished';

/** A job's training phase from the progress signal it emits (src/progress); docs/progress-protocol.md. */
export type TrainingPhase = 'Progressing' | 'Slowing' | 'Converged' | 'Diverged';

export interface JobProgress {
  readonly phase: TrainingPhase;
  /** When the job entered this phase (ms). */
  readonly since: number;
  /** The smoothed metric has reached the job's `QoeTarget.metric` (absent: no such target, or not yet). */
  readonly targetReached?: boolean;
  /**
   * Relative improvement of the smoothed metric per relative progress over the recent window
   * (src/progress/signals/phase.ts); absent until the job has reported twice.
   */
  readonly growth?: number;
  /**
   * Share of its own declared plan the job has done, in [0, 1] (`Epoch k/N`, the protocol's
   * `epochs`/`totalSteps`, `spec.qoe.totalSteps`; src/progress/signals/plan.ts); absent: it declared none.
   * An upper bound of its work, not the truth (early stopping): scheduling.md §6.
   */
  readonly planDone?: number;
}

export interface JobState {
  readonly spec: JobSpec;
  readonly phase: JobPhase;
  /** Live replicas of a running job (empty while waiting). */
  readonly replicas: readonly ReplicaInstance[];
  /**
   * Attained service (Tiresias): seconds each of the job's workers has held its node, summed over
   * the job's life, including earlier runs before a suspension. What a real operator can count from
   * its own pods; absent means unknown (read as 0).
   */
  readonly attainedWorkerSeconds?: number;
  /** The phase read from the job's own progress signal; absent = no information (scheduled as without). */
  readonly progress?: JobProgress;
  /** Measured training speed (for performance targets); absent = not measured yet. */
  readonly stepRate?: StepRate;
}

export interface ClusterSnapshot {
  /** Current time (ms); the only clock the core knows. */
  readonly now: number;
  readonly nodes: readonly NodeInfo[];
  readonly otherPods: readonly OtherPod[];
  readonly jobs: readonly JobState[];
  /** Queues with quotas; absent or empty: one global queue, no quota (the behaviour without queues). */
  readonly queues?: readonly QueueSpec[];
}

/** The policies the operator runs (policies/registry.ts); the simulator adds its baselines (lab/simulator/policies/). */
export type PolicyName = 'tf-operator' | 'kod2' | 'ours';

export interface Admission {
  readonly job: string;
  /** Every replica created at admission with its node (fixed replicas plus the initial workers). */
  readonly replicas: readonly ReplicaInstance[];
}

export interface ScaleIn {
  readonly job: string;
  readonly remove: readonly ReplicaInstance[];
  /** The waiting job this preemption makes room for, or the running job that receives the workers. */
  readonly forJob: string;
  /** The workers go to a running job behind its performance target (qoe-rebalance.ts), not to an admission. */
  readonly toMeetTarget?: boolean;
  /** Queues: the workers were borrowed quota, taken back by this queue (reclaim.ts) for `forJob`. */
  readonly reclaimedBy?: string;
  /**
   * The workers move (relocate.ts): the same job gets as many new ones on its PS's nodes in this
   * plan's scale-out, and `forJob` is admitted into the room they leave.
   */
  readonly relocated?: boolean;
}

/**
 * A whole running job stopped and sent back to the waiting queue: every pod deleted, the job
 * resumes from its own checkpoint when admitted again (Tiresias-style preemption; Kueue suspends
 * TFJobs the same way). Its submission time and attained service are kept.
 */
export interface Suspension {
  readonly job: string;
  /** The waiting job this makes room for. */
  readonly forJob: string;
}

export interface ScaleOut {
  readonly job: string;
  readonly add: readonly ReplicaInstance[];
}

/** A pending replica bound to a node (only the `tf-operator` baseline, emulating kube-scheduler). */
export interface Binding {
  readonly job: string;
  readonly replica: ReplicaInstance;
}

export interface WaitingReason {
  readonly job: string;
  /** Effective weight used in this pass (after any starvation promotion). */
  readonly weight: number;
  readonly starving: boolean;
  /** Human-readable, for Events and `kubectl describe`, e.g. "needs 2 cpu / 4Gi on one node; ...". */
  readonly reason: string;
  /** The job's queue and its 1-based position among that queue's waiting jobs, in the order the pass considered them. */
  readonly queue?: { readonly name: string; readonly position: number };
}

export interface Plan {
  /** Applied first: whole jobs back to the queue (only policies that suspend; empty otherwise). */
  readonly suspend: readonly Suspension[];
  readonly admit: readonly Admission[];
  readonly scaleIn: readonly ScaleIn[];
  readonly scaleOut: readonly ScaleOut[];
  readonly bind: readonly Binding[];
  readonly waiting: readonly WaitingReason[];
  /** Effective weight of every unfinished job in this pass. */
  readonly weights: Readonly<Record<string, number>>;
}
