// Scheduler configuration: every tunable of the core, its default, and a zod schema so the operator
// can validate what a user writes (a partial object; missing fields take the defaults below).

import { z } from 'zod';

/** Constants of the weight heuristic (scheduling.md §2, §5.1); see `weight.ts` for the formula. */
export interface WeightConfig {
  /**
   * s, the slope of the logit: ω'_j = s · (γ · ln(1 + m_j) − ln(share_j / share₀)). Larger spreads
   * weights further towards 0 and 1. 2.5 spreads the kod2-paper and Philly job mixes over roughly
   * (0.08, 0.95) without pinning any of them to the ends (test/unit/scheduler/weight.test.ts).
   */
  readonly slope: number;
  /**
   * γ, how much a larger minimum worker count raises the weight. Below 1 on purpose: for identical
   * workers share_j grows about linearly in m_j, so with γ < 1 a bigger job of the same kind still
   * ranks lower (the paper's "fewer resources first"), while between two jobs of equal demand the
   * one split into more workers ranks higher (the paper's "more workers train faster").
   */
  readonly workerExponent: number;
  /**
   * share₀, the cluster share (sum over resources of request / cluster allocatable) of a job whose
   * heuristic weight is exactly 0.5. 0.1 sits in the middle (in log scale) of both reference
   * workloads: kod2-paper jobs take 8–30% of 3 nodes, Philly jobs 4–50% of 16 nodes.
   */
  readonly referenceShare: number;
}

/**
 * Improvements of the `ours` policy over faithful KOD2 (scheduling.md §6). The `kod2` policy ignores
 * these and always runs with every one of them off, so ablations only need `ours` with toggles.
 * Each keeps a plugin (plugins/<name>/) in `ours`' list or sets one of its arguments (policies/ours.ts).
 */
export interface ImprovementToggles {
  /**
   * Scale-out visits nodes hosting the job's PS first, then the most idle nodes (or, with
   * `scaleOutPacksNodes`, the fullest with room); the paper walks nodes in name order.
   */
  readonly scaleOutPrefersPsNodes: boolean;
  /**
   * Scale-out (after the PS's nodes, with `scaleOutPrefersPsNodes`) fills the fullest node that
   * still has room first (best fit) instead of the most idle one: the crumbs left by earlier
   * placements go to growth and the emptiest nodes stay whole for the next admission, which needs
   * a whole minimum configuration. Admission placement keeps the paper's rule (most idle first),
   * so a new job lands where it can grow next to its PS.
   */
  readonly scaleOutPacksNodes: boolean;
  /**
   * Hysteresis: workers younger than `scaleOutCooldownMs` are not preempted by a waiting job of the
   * same class unless it is starving, and a job scaled in during a pass is not scaled out again in
   * that pass (it would only trade nodes and churn pods).
   */
  readonly cooldown: boolean;
  /**
   * Scale-out stops at the knee of a job's declared `WorkerGroup.scalingCurve`, while other jobs
   * wait (with nobody waiting, idle capacity is better used past the knee than not at all).
   */
  readonly scalingKnee: boolean;
  /** After a successful scale-in, workers whose removal turned out unnecessary for the placement are kept. */
  readonly pruneNeedlessPreemption: boolean;
  /** Scale-in visits a victim's nodes that the waiting job can use before nodes it cannot. */
  readonly preemptOnUsableNodesFirst: boolean;
  /**
   * When the head of the waiting queue cannot be admitted, other waiting jobs that fit without
   * preemption are admitted (Algorithm 1 otherwise admits nothing else that pass). Around a
   * starving head only off the nodes reserved for it (starvation.ts, rule 3): that reservation is
   * what bounds its wait, and it keeps the rest of the cluster busy meanwhile.
   */
  readonly backfillWhenHeadBlocked: boolean;
  /**
   * Repeat Algorithm 1's admission step (lines 5–30) until it admits nothing before scaling out, so
   * a burst of arrivals is admitted in one pass instead of scale-out filling the cluster between them.
   */
  readonly admitUntilBlocked: boolean;
  /**
   * Scale-in visits the candidate victims of each priority class (lowest class first) by what
   * their next worker adds to them per unit of cluster share (`gain.ts`), least first, instead of
   * by rank alone: the room comes from where it costs the least speed. Victims without a curve
   * come after those with one, in KOD2's order; who may be preempted at all is unchanged (only
   * jobs ranked below the waiting one).
   */
  readonly preemptCheapestFirst: boolean;
  /**
   * Before admission, running jobs grow (highest rank first, up to the knee) by workers that buy
   * more normalised speed per unit of cluster share than the minimum configuration of any waiting
   * job of their class or above would (`gain.ts`): with near-linear scaling a new job's PS is
   * pure overhead, so widening what runs beats starting more at one worker each. Not while a job
   * is starving, and not when some waiting job has no curve.
   */
  readonly growBeforeAdmit: boolean;
  /**
   * Attained service (Tiresias's 2D-LAS, two queues): a job whose workers have held more than
   * `demoteAfterWorkerSeconds` ranks, within its priority class, below every job that has not
   * (waiting or running): it is the first scale-in victim, the last to grow, and a new job outranks
   * it whatever the weights. Jobs that report no attained service count as 0.
   */
  readonly demoteByAttainedService: boolean;
  /**
   * When the head of the queue cannot be admitted even after scale-in, whole demoted jobs ranked
   * below it are suspended (all their pods deleted, the job back in the queue, resumed from its own
   * checkpoint) until it fits; only with `demoteByAttainedService`, and only jobs of its class or
   * lower that have held their node at least `scaleOutCooldownMs`.
   */
  readonly suspendDemoted: boolean;
  /**
   * With `suspendDemoted`: one waiting job per pass that backfill cannot place (not demoted, waiting
   * at least `scaleOutCooldownMs`, not confined off a starving job's reservation) may have demoted
   * jobs ranked below it suspended for it, as the head may.
   */
  readonly suspendForBackfill: boolean;
  /**
   * From FlowCon/SpeCon (docs/progress-protocol.md): a job whose own progress signal says Converged ranks
   * like a demoted one (first scale-in victim down to its minimum, last to grow), never lower;
   * it is not suspended for it. Jobs without a signal are ranked as without this toggle.
   */
  readonly demoteConverged: boolean;
  /**
   * DQoES (qoe-rebalance.ts): running jobs behind their stated performance target receive workers
   * after admissions and before plain scale-out, from idle capacity first, then from jobs ahead of
   * their own target (same class or lower). Only jobs with a target take part.
   */
  readonly qoeTargets: boolean;
  /**
   * With `qoeTargets` (qoe-protect.ts; DQoES Algorithm 1: only jobs ahead of their target give): a
   * running job with a reachable target keeps the workers its target needs when scaled in for a
   * waiting job of its class or lower that is not starving (suspension is unchanged).
   */
  readonly qoeKeepTargetSize: boolean;
  /**
   * With `qoeTargets` (qoe-size.ts, qoe-rebalance.ts): a Behind job's need is read from its declared
   * scaling curve, scaled by its measured rate, rather than from linear scaling, and is not capped at
   * the knee; a deadline job Satisfied but below its required rate (it would end past its deadline)
   * receives workers too.
   */
  readonly qoeSizeFromCurve: boolean;
  /**
   * With `qoeTargets`: while jobs wait, plain scale-out (and growth before admission) does not take a
   * job with a throughput target past the workers its target needs (DQoES cuts G; this does not
   * make G in the first place). Deadline jobs grow as before.
   */
  readonly qoeCapAtTarget: boolean;
  /**
   * With `qoeTargets` (qoe-minimum.ts): a job with a throughput target runs at the workers its target
   * needs or not at all: that size (from its declared curve, scaled by its measured rate) is its
   * minimum for the pass (admission, scale-in, the starvation rule), as if the user had asked for it
   * with `minReplicas`. Its weight is still computed from its declared minimum.
   */
  readonly qoeTargetAsMinimum: boolean;
}

export interface SchedulerConfig {
  /**
   * STARVELIMIT (ms): a waiting job whose wait since t_j reaches this is starving: it ranks above
   * every non-starving job of its priority class, starving jobs rank among themselves by t_j, and it
   * may preempt every running job of its class down to their minimum (`starvation.ts` states the
   * bound). 30 min: long enough that on hour-scale training jobs it fires only on genuine
   * starvation, so the weight heuristic still orders normal traffic. `Infinity` disables aging
   * (only for experiments: the bound is then void).
   */
  readonly starveLimitMs: number;
  readonly weight: WeightConfig;
  /** Hysteresis (`ours`): a worker younger than this is not removed by a same-class scale-in. 60 s. */
  readonly scaleOutCooldownMs: number;
  /**
   * Scaling knee (`ours`): while jobs wait, an extra worker is added only if it adds at least this
   * fraction of the throughput one worker alone achieves, per the job's `WorkerGroup.scalingCurve`.
   * 0.25.
   */
  readonly kneeMinMarginalGain: number;
  /**
   * Attained-service threshold (`demoteByAttainedService`), in worker-seconds: 2 worker-hours.
   * Tiresias uses 16 GPU-hours for fixed-size jobs that are suspended entirely; an elastic job keeps
   * its minimum while it is demoted, so a lower threshold fits; the value is the one chosen by the
   * sweep in docs/results/log.md §1b.
   */
  readonly demoteAfterWorkerSeconds: number;
  readonly improvements: ImprovementToggles;
}

export const DEFAULT_WEIGHT_CONFIG: WeightConfig = {
  slope: 2.5,
  workerExponent: 0.5,
  referenceShare: 0.1,
};

export const DEFAULT_IMPROVEMENTS: ImprovementToggles = {
  scaleOutPrefersPsNodes: true,
  scaleOutPacksNodes: true,
  cooldown: true,
  scalingKnee: true,
  pruneNeedlessPreemption: true,
  preemptOnUsableNodesFirst: true,
  backfillWhenHeadBlocked: true,
  admitUntilBlocked: true,
  preemptCheapestFirst: true,
  growBeforeAdmit: true,
  demoteByAttainedService: true,
  suspendDemoted: true,
  suspendForBackfill: true,
  demoteConverged: true,
  qoeTargets: true,
  qoeKeepTargetSize: true,
  qoeSizeFromCurve: true,
  qoeCapAtTarget: true,
  qoeTargetAsMinimum: true,
};

/** Every improvement off: what the `kod2` policy runs with, whatever the user configured. */
export const NO_IMPROVEMENTS: ImprovementToggles = {
  scaleOutPrefersPsNodes: false,
  scaleOutPacksNodes: false,
  cooldown: false,
  scalingKnee: false,
  pruneNeedlessPreemption: false,
  preemptOnUsableNodesFirst: false,
  backfillWhenHeadBlocked: false,
  admitUntilBlocked: false,
  preemptCheapestFirst: false,
  growBeforeAdmit: false,
  demoteByAttainedService: false,
  suspendDemoted: false,
  suspendForBackfill: false,
  demoteConverged: false,
  qoeTargets: false,
  qoeKeepTargetSize: false,
  qoeSizeFromCurve: false,
  qoeCapAtTarget: false,
  qoeTargetAsMinimum: false,
};

export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfig = {
  starveLimitMs: 30 * 60_000,
  weight: DEFAULT_WEIGHT_CONFIG,
  scaleOutCooldownMs: 60_000,
  kneeMinMarginalGain: 0.25,
  demoteAfterWorkerSeconds: 2 * 3600,
  improvements: DEFAULT_IMPROVEMENTS,
};

const weightSchema = z
  .object({
    slope: z.number().positive().default(DEFAULT_WEIGHT_CONFIG.slope),
    workerExponent: z.number().nonnegative().default(DEFAULT_WEIGHT_CONFIG.workerExponent),
    referenceShare: z.number().positive().default(DEFAULT_WEIGHT_CONFIG.referenceShare),
  })
  .strict();

const improvementsSchema = z
  .object({
    scaleOutPrefersPsNodes: z.boolean().default(DEFAULT_IMPROVEMENTS.scaleOutPrefersPsNodes),
    scaleOutPacksNodes: z.boolean().default(DEFAULT_IMPROVEMENTS.scaleOutPacksNodes),
    cooldown: z.boolean().default(DEFAULT_IMPROVEMENTS.cooldown),
    scalingKnee: z.boolean().default(DEFAULT_IMPROVEMENTS.scalingKnee),
    pruneNeedlessPreemption: z.boolean().default(DEFAULT_IMPROVEMENTS.pruneNeedlessPreemption),
    preemptOnUsableNodesFirst: z.boolean().default(DEFAULT_IMPROVEMENTS.preemptOnUsableNodesFirst),
    backfillWhenHeadBlocked: z.boolean().default(DEFAULT_IMPROVEMENTS.backfillWhenHeadBlocked),
    admitUntilBlocked: z.boolean().default(DEFAULT_IMPROVEMENTS.admitUntilBlocked),
    preemptCheapestFirst: z.boolean().default(DEFAULT_IMPROVEMENTS.preemptCheapestFirst),
    growBeforeAdmit: z.boolean().default(DEFAULT_IMPROVEMENTS.growBeforeAdmit),
    demoteByAttainedService: z.boolean().default(DEFAULT_IMPROVEMENTS.demoteByAttainedService),
    suspendDemoted: z.boolean().default(DEFAULT_IMPROVEMENTS.suspendDemoted),
    suspendForBackfill: z.boolean().default(DEFAULT_IMPROVEMENTS.suspendForBackfill),
    demoteConverged: z.boolean().default(DEFAULT_IMPROVEMENTS.demoteConverged),
    qoeTargets: z.boolean().default(DEFAULT_IMPROVEMENTS.qoeTargets),
    qoeKeepTargetSize: z.boolean().default(DEFAULT_IMPROVEMENTS.qoeKeepTargetSize),
    qoeSizeFromCurve: z.boolean().default(DEFAULT_IMPROVEMENTS.qoeSizeFromCurve),
    qoeCapAtTarget: z.boolean().default(DEFAULT_IMPROVEMENTS.qoeCapAtTarget),
    qoeTargetAsMinimum: z.boolean().default(DEFAULT_IMPROVEMENTS.qoeTargetAsMinimum),
  })
  .strict();

/**
 * Validates a user-written, possibly partial configuration and fills in the defaults. Unknown keys
 * are rejected so that a typo does not silently leave a default in place.
 */
export const schedulerConfigSchema = z
  .object({
    starveLimitMs: z.number().positive().default(DEFAULT_SCHEDULER_CONFIG.starveLimitMs),
    weight: weightSchema.prefault({}),
    scaleOutCooldownMs: z.number().nonnegative().default(DEFAULT_SCHEDULER_CONFIG.scaleOutCooldownMs),
    kneeMinMarginalGain: z.number().nonnegative().default(DEFAULT_SCHEDULER_CONFIG.kneeMinMarginalGain),
    demoteAfterWorkerSeconds: z.number().positive().default(DEFAULT_SCHEDULER_CONFIG.demoteAfterWorkerSeconds),
    improvements: improvementsSchema.prefault({}),
  })
  .strict();

/** Parses user input (throws a ZodError naming the offending field). */
export function parseSchedulerConfig(input: unknown): SchedulerConfig {
  return schedulerConfigSchema.parse(input ?? {});
}

/** A partial configuration in code (tests, simulator): nested objects are merged, not replaced. */
export interface SchedulerConfigOverrides {
  readonly starveLimitMs?: number;
  readonly weight?: Partial<WeightConfig>;
  readonly scaleOutCooldownMs?: number;
  readonly kneeMinMarginalGain?: number;
  readonly demoteAfterWorkerSeconds?: number;
  readonly improvements?: Partial<ImprovementToggles>;
}

export function resolveSchedulerConfig(overrides: SchedulerConfigOverrides = {}): SchedulerConfig {
  return {
    starveLimitMs: overrides.starveLimitMs ?? DEFAULT_SCHEDULER_CONFIG.starveLimitMs,
    weight: { ...DEFAULT_WEIGHT_CONFIG, ...overrides.weight },
    scaleOutCooldownMs: overrides.scaleOutCooldownMs ?? DEFAULT_SCHEDULER_CONFIG.scaleOutCooldownMs,
    kneeMinMarginalGain: overrides.kneeMinMarginalGain ?? DEFAULT_SCHEDULER_CONFIG.kneeMinMarginalGain,
    demoteAfterWorkerSeconds: overrides.demoteAfterWorkerSeconds ?? DEFAULT_SCHEDULER_CONFIG.demoteAfterWorkerSeconds,
    improvements: { ...DEFAULT_IMPROVEMENTS, ...overrides.improvements },
  };
}
