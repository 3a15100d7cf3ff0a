// One pass of a preemptive placing policy (`kod2`, `ours`) as a session, in the manner of Volcano's
// session and actions: the session holds what the pass knows and has decided so far (the model of
// the snapshot, the plan being built, the queues' quota ledger, why each waiting job waits, the
// nodes kept for starving jobs) and the named transitions that change them. What a pass runs is a
// `PassPolicy`: the actions in order plus the rules they consult, filled in by plugins through the
// named extension points of extension-points.ts.

import { admitPlaced, toInstance } from '../model/admission.ts';
import type { ClusterState } from '../model/cluster-state.ts';
import type { SchedulerConfig } from '../config.ts';
import { ExplainTexts, explainWaiting } from '../model/explain.ts';
import type { WaitOutcome } from '../model/explain.ts';
import { buildPassModel } from '../model/pass-model.ts';
import type { BandRanking, CompiledJob, LiveReplica, PassModel, RunningJob } from '../model/job-model.ts';
import { sortedWeights, PlanBuilder } from '../model/plan-builder.ts';
import { commitPlacement, findPlacement, minimumItems, minimumKey, nodesOf } from '../model/placement.ts';
import type { Placement, PlacementFailure, PlacementItem } from '../model/placement.ts';
import { byRankAscending, runningMaxWithin } from '../queues/queues.ts';
import { QueueGate, queueKey } from '../queues/queue-gate.ts';
import { times } from '../queues/quota.ts';
import type { ClusterSnapshot, Plan, WaitingReason } from '../types.ts';
import { compareRank } from '../ranking/weight.ts';

/** One step of a pass (Volcano's action): reads and changes the session. */
export interface Action {
  /** Kebab-case, as the docs and the policies' lists name it. */
  readonly name: string;
  /** The options it was made with, if any (for descriptions and tests). */
  readonly options?: object;
  run(session: PassSession): void;
}

/** Orders the candidate victims of a scale-in, given lowest rank first (victims.ts). */
export type VictimOrder = (state: ClusterState, ranked: readonly RunningJob[]) => readonly RunningJob[];
/** Why a victim keeps its worker number `workers` against `head`; undefined: no reason for this head. */
export type KeepRule = (session: PassSession, head: CompiledJob) => ((victim: RunningJob, workers: number) => boolean) | undefined;
/** Another way to admit `head` (true: admitted), tried when scale-in cannot. */
export type HeadFallback = (session: PassSession, head: CompiledJob) => boolean;

/** How a head takes room from running jobs (Scale-In, Alg. 2; preempt.ts). */
export interface PreemptionRules {
  readonly order: VictimOrder;
  /** Reasons a victim keeps a worker; any one suffices. */
  readonly keeps: readonly KeepRule[];
  /** `preemptOnUsableNodesFirst`. */
  readonly usableNodesFirst: boolean;
  /** `pruneNeedlessPreemption`. */
  readonly pruneNeedless: boolean;
  /** Tried in order when scale-in cannot admit the head. */
  readonly fallbacks: readonly HeadFallback[];
}

/** How running jobs grow (Scale-Out, Alg. 3; growth.ts). */
export interface GrowthRules {
  /** `scaleOutPrefersPsNodes`. */
  readonly psNodesFirst: boolean;
  /** `scaleOutPacksNodes`. */
  readonly packNodes: boolean;
  /** `scalingKnee`: stop at the knee of a declared scaling curve while jobs wait. */
  readonly knee: boolean;
  /** Jobs that keep their size this pass, whatever room there is. */
  readonly holds: readonly ((job: RunningJob) => boolean)[];
  /** While jobs wait, a further cap on a job's size (`qoeCapAtTarget`). */
  readonly capWhileWaiting?: (job: RunningJob, limit: number, now: number) => number;
}

/** Given the pass's first model, a ranking to build it again with; undefined: keep it. */
export type RankingRefinement = (model: PassModel, ranking: BandRanking) => BandRanking | undefined;

export interface PassPolicy {
  /** Which demotions rank the jobs (job-model.ts). */
  readonly ranking: BandRanking;
  /** Tried in order once the model is built; the first refinement rebuilds it. */
  readonly refineRanking: readonly RankingRefinement[];
  /** `cooldown`: young workers are kept from same-class scale-in; a job scaled in does not regrow in the pass. */
  readonly cooldown: boolean;
  readonly preemption: PreemptionRules;
  readonly growth: GrowthRules;
  readonly actions: readonly Action[];
}

/** Which head a line of waiting jobs last considered, and whether it holds a reservation. */
export interface LineHead {
  readonly head: CompiledJob;
  readonly reservation: boolean;
}

export class PassSession {
  readonly config: SchedulerConfig;
  readonly policy: PassPolicy;
  readonly model: PassModel;
  readonly state: ClusterState;
  readonly now: number;
  readonly plan = new PlanBuilder();
  /** What happened to each waiting job that was tried or settled. */
  readonly outcomes = new Map<string, WaitOutcome>();
  /** Queues with quotas (queue-gate.ts); without them every rule is KOD2's single queue. */
  readonly gate: QueueGate;
  /** The waiting jobs in the order the pass considers them. */
  readonly waitingOrder: readonly CompiledJob[];
  /** `cooldown`'s protection of young workers (ms); undefined: off. */
  readonly cooldownMs: number | undefined;
  /** The last head of each line (queue) of waiting jobs. */
  readonly lastHeads = new Map<string, LineHead>();
  /** Nodes reserved for starving heads: nothing new grows there. */
  reserved: Uint8Array | undefined;
  /** `suspendForBackfill` is tried for one job per pass. */
  backfillSuspensionTried = false;

  /** `neverFits` answers (null: it fits an empty cluster); asked up to three times per job. */
  readonly #neverFits = new Map<CompiledJob, PlacementFailure | null>();
  /** Minimum configurations (by key) that found a placement on the pass's cluster at some point. */
  readonly #fittedKeys = new Set<string>();
  /** Line 5's comparison target per (queue, priority class); only raised while jobs are admitted. */
  readonly #runningMax = new Map<string, { priority: number; queue: string; best: RunningJob | undefined }>();
  /** Running jobs lowest rank first, kept sorted as jobs are admitted. */
  #ascending: RunningJob[] | undefined;

  constructor(snapshot: ClusterSnapshot, config: SchedulerConfig, policy: PassPolicy) {
    this.config = config;
    this.policy = policy;
    let model = buildPassModel(snapshot, config, policy.ranking);
    for (const refine of policy.refineRanking) {
      const ranking = refine(model, policy.ranking);
      if (ranking === undefined) continue;
      model = buildPassModel(snapshot, config, ranking);
      break;
    }
    this.model = model;
    this.state = model.state;
    this.now = model.now;
    this.cooldownMs = policy.cooldown ? config.scaleOutCooldownMs : undefined;
    this.gate = new QueueGate(snapshot, model.running);
    this.waitingOrder = this.gate.order(model.waiting);
  }

  /** Admitted, or its outcome already decided. */
  isSettled(job: CompiledJob): boolean {
    return this.plan.isAdmitted(job.key) || this.outcomes.has(job.key);
  }

  /** Whether the job may not be admitted now; `inadmissibleOnly`: only for reasons no preemption can change. */
  blocked(job: CompiledJob, inadmissibleOnly = false): boolean {
    const why = inadmissibleOnly ? this.gate.inadmissibleReason(job) : this.gate.blockOf(job);
    if (why !== undefined) this.outcomes.set(job.key, { kind: 'quota', why });
    return why !== undefined;
  }

  /** Why the job's minimum configuration cannot fit even the cluster with no managed job; undefined: it can. */
  neverFits(job: CompiledJob): PlacementFailure | undefined {
    let failure = this.#neverFits.get(job);
    if (failure === undefined) {
      // A job that fits now, or whose shape fitted earlier in the pass, fits the empty cluster (idle
      // there is never less on any node): the answer without a search there. The search on the
      // current cluster is kept for the placement that usually follows (same key).
      const key = minimumKey(job);
      const now = findPlacement(this.state, minimumItems(job), key);
      if (now.ok) this.#fittedKeys.add(key);
      if (now.ok || this.#fittedKeys.has(key)) failure = null;
      else {
        const out = findPlacement(this.model.emptyCluster(), minimumItems(job), key);
        failure = out.ok ? null : out.failure;
      }
      this.#neverFits.set(job, failure);
    }
    return failure ?? undefined;
  }

  /** Settles a job that can never fit (its outcome says so); false if it can. */
  settleIfNeverFits(job: CompiledJob): boolean {
    const never = this.neverFits(job);
    if (never === undefined) return false;
    this.outcomes.set(job.key, { kind: 'never-fits', failure: never, configuration: 'minimum', emptyCluster: this.model.emptyCluster() });
    return true;
  }

  /** Line 5's comparison target: the top running job of the job's class or below (and queue). */
  runningMax(job: CompiledJob): RunningJob | undefined {
    const queue = queueKey(job);
    const key = `${queue}\u0000${job.priority}`;
    let entry = this.#runningMax.get(key);
    if (entry === undefined) {
      const line = this.gate.enabled ? this.model.running.filter((r) => queueKey(r.job) === queue) : this.model.running;
      entry = { priority: job.priority, queue, best: runningMaxWithin(line, job.priority) };
      this.#runningMax.set(key, entry);
    }
    return entry.best;
  }

  /** Running jobs lowest rank first (scale-in's victims): sorted once, admitted jobs inserted since. */
  runningAscending(): readonly RunningJob[] {
    const ascending = (this.#ascending ??= byRankAscending(this.model.running));
    for (let k = ascending.length; k < this.model.running.length; k++) {
      const r = this.model.running[k]!;
      let lo = 0;
      let hi = ascending.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareRank(ascending[mid]!.job, r.job) > 0) lo = mid + 1;
        else hi = mid;
      }
      ascending.splice(lo, 0, r);
    }
    return ascending;
  }

  /** Where the job's minimum configuration would not fit now (undefined: it would), without placing it. */
  probe(job: CompiledJob): PlacementFailure | undefined {
    const out = findPlacement(this.state, minimumItems(job), minimumKey(job));
    return out.ok ? undefined : out.failure;
  }

  /**
   * The nodes a starving head's minimum configuration occupies on the empty cluster: its
   * reservation (starvation.ts, rule 3). Nothing new is placed there while it waits, so they drain.
   */
  reservedNodesOf(job: CompiledJob): Uint8Array {
    const out = findPlacement(this.model.emptyCluster(), minimumItems(job), minimumKey(job));
    return out.ok ? nodesOf(this.state, out.placement) : new Uint8Array(this.state.nodes.length);
  }

  /** Admits the job's minimum configuration without preemption (on `allowed` nodes only, if given); the failure if it does not fit. */
  admitDirect(job: CompiledJob, allowed?: Uint8Array): PlacementFailure | undefined {
    const items = minimumItems(job);
    const out = findPlacement(this.state, items, minimumKey(job), allowed);
    if (!out.ok) return out.failure;
    this.#fittedKeys.add(minimumKey(job));
    commitPlacement(this.state, items, out.placement);
    this.admitPlaced(job, items, out.placement);
    return undefined;
  }

  /** Admits the job at `placement`, already applied to the state. */
  admitPlaced(job: CompiledJob, items: readonly PlacementItem[], placement: Placement): void {
    this.plan.admit(job.key, admitPlaced(this.model, job, items, placement));
    this.gate.charge(job, job.minRequests, 1);
    const admitted = this.model.runningByKey.get(job.key)!;
    for (const entry of this.#runningMax.values()) {
      if (this.gate.enabled && entry.queue !== queueKey(job)) continue;
      if (job.priority <= entry.priority && (entry.best === undefined || compareRank(job, entry.best.job) < 0)) entry.best = admitted;
    }
  }

  /** Workers added to a running job (already placed in the state): planned and charged to its queue. */
  grow(job: RunningJob, added: readonly LiveReplica[]): void {
    if (job.job.workers !== undefined) this.gate.charge(job.job, times(job.job.workers.requests, added.length), 1);
    this.plan.addWorkers(
      job.job.key,
      added.map((w) => toInstance(this.state, w)),
    );
  }

  /** Workers taken from a running job for `forJob` (already off the state): planned and credited to its queue. */
  shrink(
    job: RunningJob,
    removed: readonly LiveReplica[],
    forJob: string,
    why: { toMeetTarget?: boolean; reclaimedBy?: string } = {},
  ): void {
    if (job.job.workers !== undefined) this.gate.charge(job.job, times(job.job.workers.requests, removed.length), -1);
    this.recordScaleIn(job, removed, forJob, why);
  }

  /** Plans a scale-in whose quota the caller's ledger already settled. */
  recordScaleIn(
    job: RunningJob,
    removed: readonly LiveReplica[],
    forJob: string,
    why: { toMeetTarget?: boolean; reclaimedBy?: string; relocated?: boolean } = {},
  ): void {
    this.plan.scaleIn(
      job.job.key,
      removed.map((w) => toInstance(this.state, w)),
      forJob,
      why,
    );
  }

  /** Suspends a whole running job for `forJob` (its replicas already off the state) and takes it out of the pass. */
  suspend(victim: RunningJob, forJob: string): void {
    this.plan.suspend(victim.job.key, forJob);
    this.model.runningByKey.delete(victim.job.key);
    const i = this.model.running.indexOf(victim);
    if (i >= 0) this.model.running.splice(i, 1);
    // Both caches assume running jobs are only ever added.
    this.#ascending = undefined;
    this.#runningMax.clear();
  }

  /** The waiting jobs not admitted that could ever fit (after the admissions: whom growth keeps room for). */
  stillWaiting(): CompiledJob[] {
    return this.model.waiting.filter((j) => !this.plan.isAdmitted(j.key) && this.outcomes.get(j.key)?.kind !== 'never-fits');
  }

  /** The scaling knee's gain while `someoneWaits`; undefined: no knee. */
  kneeGain(someoneWaits: boolean): number | undefined {
    return this.policy.growth.knee && someoneWaits ? this.config.kneeMinMarginalGain : undefined;
  }

  /** The plan, with every waiting job's reason. */
  finish(): Plan {
    const { model, config, gate } = this;
    const waiting: WaitingReason[] = [];
    const texts = new ExplainTexts();
    for (const job of this.waitingOrder) {
      if (this.plan.isAdmitted(job.key)) continue;
      const last = this.lastHeads.get(queueKey(job));
      const outcome: WaitOutcome = this.outcomes.get(job.key) ?? {
        kind: 'behind-head',
        head: last?.head ?? job,
        reservation: last?.reservation ?? false,
      };
      const reason = explainWaiting(job, outcome, {
        state: this.state,
        now: this.now,
        starveLimitMs: config.starveLimitMs,
        aging: true,
        items: minimumItems(job),
        texts,
        itemsKey: minimumKey(job),
      });
      waiting.push({ job: job.key, weight: job.weight, starving: job.starving, reason });
    }
    return this.plan.build(
      gate.withPositions(waiting, model.jobs),
      sortedWeights([...model.jobs.values()].map((j) => [j.key, j.weight] as const)),
    );
  }
}

/** One pass of `policy`: its actions in order over a fresh session. */
export function runPass(snapshot: ClusterSnapshot, config: SchedulerConfig, policy: PassPolicy): Plan {
  const session = new PassSession(snapshot, config, policy);
  for (const action of policy.actions) action.run(session);
  return session.finish();
}
