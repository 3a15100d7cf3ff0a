// Algorithm 1 (preemptive scheduling), shared by `kod2` (every improvement off) and `ours`.
//
//   ours (growBeforeAdmit), while no job starves: running jobs first grow by the workers that buy
//         more normalised speed per share than any waiting job of their class would (gain.ts)
//   head = the highest-ranked waiting job that could fit an empty cluster          (lines 5, 19)
//   if head outranks (priority, then weight) every running job of its class or below:  (line 5)
//       place head's minimum configuration (§4.1)                                  (lines 6–9)
//       else Scale-In (Alg. 2) and place it                                       (lines 10–16)
//            (ours: victims whose next worker adds least first; opt-in: only for a gain)
//       ours: repeat with the next head while admissions succeed; if the head is blocked, admit
//             others that fit without preemption (backfill) — around a starving head only off
//             the nodes reserved for it
//   else: every waiting job by rank, admitted if it fits, no preemption            (lines 18–26)
//   starvation (lines 27–29) is applied when ranks are computed (`starvation.ts`)
//   ours (qoeTargets): jobs behind their performance target grow, from idle capacity and then
//         from jobs ahead of theirs (qoe-rebalance.ts)
//   Scale-Out (Alg. 3) of running jobs, highest rank first                         (lines 31–36)
//   RQ → FQ (lines 37–40) is observed by the controller, not decided here (§5.7)
//
// Jobs whose minimum configuration cannot fit even an empty cluster (other pods aside) are never
// the head: otherwise one impossible job would stop line 5's branch for everyone, forever.

import { admitPlaced, toInstance } from '../admission.ts';
import type { ClusterState } from '../cluster-state.ts';
import type { ImprovementToggles, SchedulerConfig } from '../config.ts';
import { ExplainTexts, explainWaiting } from '../explain.ts';
import type { WaitOutcome } from '../explain.ts';
import { admissionGainDensity, growBeforeAdmitLimit, workerGainDensity } from '../gain.ts';
import { addWorkers, buildPassModel, removeWorkers } from '../job-model.ts';
import type { CompiledJob, LiveReplica, RunningJob } from '../job-model.ts';
import { sortedWeights, PlanBuilder } from '../plan-builder.ts';
import { commitPlacement, findPlacement, minimumItems, minimumKey, nodesOf } from '../placement.ts';
import type { PlacementFailure } from '../placement.ts';
import { byRankAscending, byRankDescending, outranksRunning, runningMaxWithin } from '../queues.ts';
import { rebalanceForTargets, shrinkAtTargets, shrinksAtTarget, throughputTargetCap } from '../qoe-rebalance.ts';
import { targetFloor } from '../qoe-protect.ts';
import { raisedMinimaThatNeverFit } from '../qoe-minimum-fit.ts';
import { QueueGate, queueKey } from '../queue-gate.ts';
import { times } from '../quota.ts';
import { reclaimForGrowth, reclaimQuota } from '../reclaim.ts';
import { growByEfficiency } from '../growth-share.ts';
import { relocateFor } from '../relocate.ts';
import { scaleInFor } from '../scale-in.ts';
import { kneeLimit, scaleOut, type ScaleOutOptions } from '../scale-out.ts';
import { suspendFor } from '../suspend.ts';
import type { ClusterSnapshot, Plan, WaitingReason } from '../types.ts';
import { compareRank } from '../weight.ts';

/**
 * `preemptCheapestFirst`: victims (already ranked lowest first) by priority class, lowest first,
 * then by what their next worker adds per unit of share, least first (unknown last), then rank.
 */
function cheapestFirst(state: ClusterState, ranked: readonly RunningJob[]): RunningJob[] {
  const loss = new Float64Array(ranked.length);
  for (let i = 0; i < ranked.length; i++) {
    const r = ranked[i]!;
    loss[i] =
      (r.job.workers === undefined ? undefined : workerGainDensity(state, r.job.workers, r.workers.length)) ?? Number.POSITIVE_INFINITY;
  }
  const order = (a: number, b: number): number => ranked[a]!.job.priority - ranked[b]!.job.priority || loss[a]! - loss[b]! || a - b;
  // Rank order is already by class, lowest first; without scaling curves every loss is unknown,
  // so the list is usually in order already and needs no sort (nor an object per job to sort by).
  let sorted = true;
  for (let k = 1; k < ranked.length && sorted; k++) sorted = order(k - 1, k) <= 0;
  if (sorted) return [...ranked];
  return Array.from(ranked.keys())
    .sort(order)
    .map((i) => ranked[i]!);
}

export function runPreemptivePass(snapshot: ClusterSnapshot, config: SchedulerConfig, toggles: ImprovementToggles): Plan {
  const ranking = {
    byAttainedService: toggles.demoteByAttainedService,
    byPhase: toggles.demoteConverged,
    byDeclaredPlan: toggles.rankByDeclaredPlan,
    targetMinimum: toggles.qoeTargets && toggles.qoeTargetAsMinimum,
  };
  let model = buildPassModel(snapshot, config, ranking);
  // ours (qoeTargetAsMinimum): a waiting job whose target's size would never fit the cluster keeps its
  // declared minimum (otherwise it could never be admitted at all).
  const tooLarge = ranking.targetMinimum ? raisedMinimaThatNeverFit(model) : [];
  if (tooLarge.length > 0) model = buildPassModel(snapshot, config, { ...ranking, declaredMinimumFor: new Set(tooLarge) });
  const { state, now } = model;
  const plan = new PlanBuilder();
  const outcomes = new Map<string, WaitOutcome>();
  const cooldownMs = toggles.cooldown ? config.scaleOutCooldownMs : undefined;
  const keepTargets = toggles.qoeTargets && toggles.qoeKeepTargetSize;
  // Queues with quotas (queue-gate.ts); without them every rule below is KOD2's single queue.
  const gate = new QueueGate(snapshot, model.running);
  const waitingOrder = gate.order(model.waiting);
  /** Whether the job may not be admitted now; `inadmissibleOnly`: only for reasons no preemption can change. */
  const blocked = (job: CompiledJob, inadmissibleOnly = false): boolean => {
    const why = inadmissibleOnly ? gate.inadmissibleReason(job) : gate.blockOf(job);
    if (why !== undefined) outcomes.set(job.key, { kind: 'quota', why });
    return why !== undefined;
  };

  // Asked up to three times per job (growth, head search, backfill); the answer never changes.
  const neverFitsMemo = new Map<CompiledJob, PlacementFailure | null>();
  // Minimum configurations (by key) that found a placement on the pass's cluster at some point.
  const fittedKeys = new Set<string>();
  const neverFits = (job: CompiledJob): PlacementFailure | undefined => {
    let failure = neverFitsMemo.get(job);
    if (failure === undefined) {
      // Most jobs are asked just before they are placed, and the search on the current cluster is
      // then kept for that placement (same key, nothing changed). A job that fits now, or whose
      // shape fitted earlier in the pass, fits with no other job running (idle there is never
      // less on any node than at any point of the pass, so the same placement is valid): the
      // answer, without a search on the empty cluster.
      const now = findPlacement(state, minimumItems(job), minimumKey(job));
      if (now.ok) fittedKeys.add(minimumKey(job));
      if (now.ok || fittedKeys.has(minimumKey(job))) failure = null;
      else {
        const out = findPlacement(model.emptyCluster(), minimumItems(job), minimumKey(job));
        failure = out.ok ? null : out.failure;
      }
      neverFitsMemo.set(job, failure);
    }
    return failure ?? undefined;
  };

  // Line 5's comparison target per priority class (and queue: ranks only compete within one).
  // Running jobs are only ever added during a pass (scale-in shrinks jobs, it never ends them), so a
  // cached maximum only needs raising.
  const runningMaxCache = new Map<string, { priority: number; queue: string; best: RunningJob | undefined }>();
  const runningMax = (job: CompiledJob): RunningJob | undefined => {
    const queue = queueKey(job);
    const key = `${queue}\u0000${job.priority}`;
    let entry = runningMaxCache.get(key);
    if (entry === undefined) {
      const line = gate.enabled ? model.running.filter((r) => queueKey(r.job) === queue) : model.running;
      entry = { priority: job.priority, queue, best: runningMaxWithin(line, job.priority) };
      runningMaxCache.set(key, entry);
    }
    return entry.best;
  };
  const noteAdmitted = (job: CompiledJob): void => {
    const admitted = model.runningByKey.get(job.key)!;
    for (const entry of runningMaxCache.values()) {
      if (gate.enabled && entry.queue !== queueKey(job)) continue;
      if (job.priority <= entry.priority && (entry.best === undefined || compareRank(job, entry.best.job) < 0)) entry.best = admitted;
    }
  };

  /**
   * The nodes a starving head's minimum configuration occupies on the empty cluster: its
   * reservation in `ours` (starvation.ts, rule 3). Nothing new is placed there while it waits, so
   * they drain, and then exactly that placement is available again.
   */
  const reservedNodesOf = (job: CompiledJob): Uint8Array => {
    const out = findPlacement(model.emptyCluster(), minimumItems(job), minimumKey(job));
    return out.ok ? nodesOf(state, out.placement) : new Uint8Array(state.nodes.length);
  };

  /**
   * Places the job's minimum configuration without preemption (on `allowed` nodes only, if
   * given); the failure if it does not fit.
   */
  const tryDirect = (job: CompiledJob, allowed?: Uint8Array): PlacementFailure | undefined => {
    const items = minimumItems(job);
    const out = findPlacement(state, items, minimumKey(job), allowed);
    if (!out.ok) return out.failure;
    fittedKeys.add(minimumKey(job));
    commitPlacement(state, items, out.placement);
    plan.admit(job.key, admitPlaced(model, job, items, out.placement));
    gate.charge(job, job.minRequests, 1);
    noteAdmitted(job);
    return undefined;
  };

  // Running jobs lowest rank first, for scale-in's victims: sorted once, then each job admitted
  // since is inserted (running jobs are only ever added during a pass).
  let ascending: RunningJob[] | undefined;
  const runningAscending = (): readonly RunningJob[] => {
    if (ascending === undefined) ascending = byRankAscending(model.running);
    for (let k = ascending.length; k < model.running.length; k++) {
      const r = model.running[k]!;
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
  };

  /** Takes a suspended job out of the pass's running jobs. */
  const dropRunning = (victim: RunningJob): void => {
    model.runningByKey.delete(victim.job.key);
    const i = model.running.indexOf(victim);
    if (i >= 0) model.running.splice(i, 1);
    // Both caches assume running jobs are only ever added.
    ascending = undefined;
    runningMaxCache.clear();
  };

  /** ours (`suspendDemoted`): whole demoted jobs ranked below the head go back to the queue. */
  const trySuspend = (head: CompiledJob): boolean => {
    // Suspension frees nodes, not quota: a head over its queue's quota is not helped by it.
    if (!toggles.demoteByAttainedService || !toggles.suspendDemoted || gate.blockOf(head) !== undefined) return false;
    const reclaimable = gate.reclaimTest(head);
    const candidates = runningAscending().filter(
      (r) =>
        r.job.state.spec.suspendable === true &&
        r.job.served > head.served &&
        ((r.job.priority <= head.priority && compareRank(r.job, head) > 0 && gate.sameLine(head, r)) || reclaimable?.(r) === true),
    );
    if (candidates.length === 0) return false;
    const res = suspendFor(state, head, candidates, now, config.scaleOutCooldownMs);
    if (!res.ok) return false;
    for (const victim of res.victims) {
      plan.suspend(victim.job.key, head.key);
      gate.release(victim);
      dropRunning(victim);
    }
    plan.admit(head.key, admitPlaced(model, head, res.items, res.placement));
    gate.charge(head, head.minRequests, 1);
    noteAdmitted(head);
    return true;
  };

  /**
   * ours (`relocateConverged`): remote workers of Converged jobs ranked below the head move onto
   * their PS's nodes when the room they leave admits the head (relocate.ts). Tried before suspension:
   * it stops no job.
   */
  const tryRelocate = (head: CompiledJob): boolean => {
    if (!toggles.relocateConverged || gate.blockOf(head) !== undefined) return false;
    const candidates = runningAscending().filter(
      (r) =>
        r.job.state.progress?.phase === 'Converged' &&
        r.job.priority <= head.priority &&
        compareRank(r.job, head) > 0 &&
        gate.sameLine(head, r),
    );
    if (candidates.length === 0) return false;
    const res = relocateFor(state, head, candidates, now, cooldownMs);
    if (!res.ok) return false;
    for (const m of res.moves) {
      plan.scaleIn(
        m.job.job.key,
        m.removed.map((w) => toInstance(state, w)),
        head.key,
        { relocated: true },
      );
      removeWorkers(m.job, m.removed);
      // Not onGrow: the job holds as much as before, so its queue is charged nothing.
      const added = addWorkers(m.job, m.job.job.workers!.type, m.to, now);
      plan.addWorkers(
        m.job.job.key,
        added.map((w) => toInstance(state, w)),
      );
    }
    plan.admit(head.key, admitPlaced(model, head, res.items, res.placement));
    gate.charge(head, head.minRequests, 1);
    noteAdmitted(head);
    return true;
  };

  /** Where the job's minimum configuration would not fit now (undefined: it would), without placing it. */
  const probe = (job: CompiledJob): PlacementFailure | undefined => {
    const out = findPlacement(state, minimumItems(job), minimumKey(job));
    return out.ok ? undefined : out.failure;
  };

  /**
   * Scale-In for the head (Alg. 2). `failure`: why its minimum does not fit now (undefined: it
   * fits, but `overQuota` says its queue's quota does not take it: the removals must free quota).
   */
  const tryScaleIn = (head: CompiledJob, failure: PlacementFailure | undefined, overQuota: string | undefined): boolean => {
    // The running jobs ranked strictly below the head (which implies a class no higher) are a
    // prefix of the ascending list: ranks are a strict order (keys are unique).
    const ascendingRunning = runningAscending();
    let below = 0;
    let above = ascendingRunning.length;
    while (below < above) {
      const mid = (below + above) >> 1;
      if (compareRank(ascendingRunning[mid]!.job, head) > 0) below = mid + 1;
      else above = mid;
    }
    // Under quotas: lower-ranked jobs of the head's own queue, after the borrowed workers of other
    // queues that the head may reclaim.
    const reclaimable = gate.reclaimTest(head);
    const ranked = gate.enabled
      ? [
          ...(reclaimable === undefined ? [] : ascendingRunning.filter(reclaimable)),
          ...ascendingRunning.slice(0, below).filter((r) => gate.sameLine(head, r)),
        ]
      : ascendingRunning.slice(0, below);
    const candidates = toggles.preemptCheapestFirst ? cheapestFirst(state, ranked) : ranked;
    // ours: a same-class victim keeps a worker that adds at least what the head's admission buys.
    const headGain = toggles.preemptOnlyForGain && !head.starving ? admissionGainDensity(state, head) : undefined;
    const forGain =
      headGain === undefined
        ? undefined
        : (victim: RunningJob, workers: number): boolean => {
            if (victim.job.priority !== head.priority || victim.job.workers === undefined) return false;
            const loss = workerGainDensity(state, victim.job.workers, workers);
            return loss !== undefined && loss >= headGain;
          };
    // ours (qoeKeepTargetSize): a job keeps the workers its reachable target needs (qoe-protect.ts).
    const forTarget = keepTargets ? (victim: RunningJob, workers: number): boolean => workers <= targetFloor(victim, head, now) : undefined;
    const keepsWorker =
      forGain === undefined || forTarget === undefined
        ? (forGain ?? forTarget)
        : (victim: RunningJob, workers: number): boolean => forTarget(victim, workers) || forGain(victim, workers);
    const res = scaleInFor(state, head, candidates, now, {
      quota: gate.quotaTrial(head),
      cooldownMs,
      usableNodesFirst: toggles.preemptOnUsableNodesFirst,
      pruneNeedless: toggles.pruneNeedlessPreemption,
      ...(keepsWorker === undefined ? {} : { keepsWorker }),
    });
    if (!res.ok) {
      if (tryRelocate(head) || trySuspend(head)) return true;
      outcomes.set(
        head.key,
        overQuota !== undefined
          ? { kind: 'quota', why: `${overQuota}; scaling in lower-ranked jobs of its queue would not free enough` }
          : { kind: 'head-blocked', failure: failure!, scaleIn: res.stats },
      );
      return false;
    }
    for (const { victim, workers } of res.removals) {
      // A worker of another queue is borrowed quota taken back, not a preemption by rank.
      const reclaimedBy = queueKey(victim.job) === queueKey(head) ? undefined : head.state.spec.queue;
      plan.scaleIn(
        victim.job.key,
        workers.map((w) => toInstance(state, w)),
        head.key,
        reclaimedBy === undefined ? {} : { reclaimedBy },
      );
      if (victim.job.workers !== undefined) gate.charge(victim.job, times(victim.job.workers.requests, workers.length), -1);
    }
    plan.admit(head.key, admitPlaced(model, head, res.items, res.placement));
    gate.charge(head, head.minRequests, 1);
    noteAdmitted(head);
    return true;
  };

  /**
   * ours (`suspendForBackfill`): one backfill job per pass that does not fit may also have demoted
   * jobs suspended for it, as the head may (Tiresias lets any job of a higher queue preempt): the
   * first, in rank order, that is not demoted itself, has waited at least the scale-out cool-down
   * (one that just arrived often gets room from the normal flow) and is not confined off a starving
   * job's reservation. One try per pass bounds the work in a large cluster.
   */
  let backfillSuspensionTried = false;
  const mayTrySuspendFor = (job: CompiledJob, around: { readonly head: CompiledJob } | undefined): boolean => {
    if (!toggles.suspendForBackfill || backfillSuspensionTried || around !== undefined || job.served !== 0) return false;
    if (now - job.submittedAt < config.scaleOutCooldownMs) return false;
    backfillSuspensionTried = true;
    return true;
  };

  /**
   * Lines 18–26 (and `ours`' backfill): every remaining waiting job by rank, no preemption; when
   * backfilling around a starving head, only off its reserved nodes.
   */
  const admitThoseThatFit = (
    backfill: boolean,
    line: readonly CompiledJob[],
    around?: { readonly head: CompiledJob; readonly reserved: Uint8Array },
  ): void => {
    const allowed = around === undefined ? undefined : around.reserved.map((x) => 1 - x);
    for (const job of line) {
      if (plan.isAdmitted(job.key) || outcomes.has(job.key)) continue;
      const never = neverFits(job);
      if (never !== undefined) {
        outcomes.set(job.key, { kind: 'never-fits', failure: never, configuration: 'minimum', emptyCluster: model.emptyCluster() });
        continue;
      }
      if (blocked(job)) continue;
      const failure = tryDirect(job, allowed);
      if (failure !== undefined && mayTrySuspendFor(job, around) && trySuspend(job)) continue;
      if (failure !== undefined) {
        outcomes.set(job.key, { kind: 'no-room', failure, runningMax: runningMax(job), backfill, reservedFor: around?.head.key });
      }
    }
  };

  const onGrow = (job: RunningJob, added: readonly LiveReplica[]): void => {
    if (job.job.workers !== undefined) gate.charge(job.job, times(job.job.workers.requests, added.length), 1);
    plan.addWorkers(
      job.job.key,
      added.map((w) => toInstance(state, w)),
    );
  };

  /** Scale-out of the running jobs, heaviest first, with this policy's toggles. */
  const growRunning = (opts: {
    /** Whether the scaling knee applies (only while someone waits who could use the room). */
    readonly knee: boolean;
    readonly skipJobsScaledInThisPass: boolean;
    readonly limitFor?: ScaleOutOptions['limitFor'];
    readonly reserved?: Uint8Array;
  }): void => {
    for (const round of gate.growthRounds()) {
      const jobs = round.order(byRankDescending(model.running));
      const scaleOutOptions: ScaleOutOptions = {
        psNodesFirst: toggles.scaleOutPrefersPsNodes,
        packNodes: toggles.scaleOutPacksNodes,
        kneeMinMarginalGain: toggles.scalingKnee && opts.knee ? config.kneeMinMarginalGain : undefined,
        skipJobsScaledInThisPass: opts.skipJobsScaledInThisPass,
        limitFor: (job, limit) => {
          // A job that reached its metric target and asked to shrink stays at its minimum.
          if (toggles.qoeTargets && shrinksAtTarget(job)) return job.workers.length;
          // ours (demoteConverged): a job whose loss went NaN never grows.
          if (toggles.demoteConverged && job.job.state.progress?.phase === 'Diverged') return job.workers.length;
          // ours (qoeCapAtTarget): while others wait, a throughput target's job grows no further than it needs.
          const capped = toggles.qoeTargets && toggles.qoeCapAtTarget && opts.knee ? throughputTargetCap(job, limit, now) : limit;
          return round.limitFor(job, opts.limitFor === undefined ? capped : opts.limitFor(job, capped));
        },
        ...(opts.reserved === undefined ? {} : { reserved: opts.reserved }),
      };
      // ours (growByEfficiency): jobs still learning fast first, in proportion to how fast.
      if (toggles.growByEfficiency) growByEfficiency(state, jobs, now, scaleOutOptions, onGrow);
      scaleOut(state, jobs, now, scaleOutOptions, onGrow);
    }
  };

  // ours (qoeTargets): jobs whose metric reached the target they set, and that asked to shrink
  // then, go down to their minimum first: the room is there for this pass's admissions.
  if (toggles.qoeTargets) {
    shrinkAtTargets(state, model.running, (job, removed) => {
      if (job.job.workers !== undefined) gate.charge(job.job, times(job.job.workers.requests, removed.length), -1);
      plan.scaleIn(
        job.job.key,
        removed.map((w) => toInstance(state, w)),
        job.job.key,
      );
    });
  }

  // Queues (reclaim.ts): the first waiting job of each queue whose minimum fits its nominal quota,
  // but not what its cohort still lends, takes the quota back from the queues that borrow it and is
  // tried at once, lowest queue share first. If it still cannot be placed, the quota stays held for
  // it for the rest of the pass, so no borrower grows back into it.
  if (gate.enabled) {
    const firstOf = new Map<string, CompiledJob>();
    for (const job of waitingOrder) {
      const q = job.state.spec.queue;
      if (q === undefined || firstOf.has(q) || job.state.spec.inadmissible !== undefined || neverFits(job) !== undefined) continue;
      firstOf.set(q, job);
    }
    const byShare = [...firstOf.keys()].sort((a, b) => gate.ledger.share(a) - gate.ledger.share(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const q of byShare) {
      const head = firstOf.get(q)!;
      if (!gate.ledger.has(q) || gate.blockOf(head) === undefined || !gate.withinNominal(head)) continue;
      const taken = reclaimQuota(state, gate.ledger, q, head, head.minRequests, model.running);
      if (taken === undefined) continue;
      for (const { victim, workers } of taken.removals) {
        plan.scaleIn(
          victim.job.key,
          workers.map((w) => toInstance(state, w)),
          head.key,
          { reclaimedBy: q },
        );
      }
      for (const victim of taken.suspended) {
        plan.suspend(victim.job.key, head.key);
        dropRunning(victim);
      }
      const failure = tryDirect(head);
      if (failure === undefined || tryScaleIn(head, failure, undefined)) continue;
      gate.charge(head, head.minRequests, 1);
    }
  }

  // ours (growBeforeAdmit): before any admission, running jobs take the workers that buy more
  // normalised speed per unit of share than the best waiting job of their class would with its
  // minimum configuration (gain.ts). Never while a job starves (its bound relies on KOD2's order).
  if (toggles.growBeforeAdmit && model.waiting.length > 0 && !model.waiting.some((j) => j.starving)) {
    // Best admission value per class; a waiting job without a known value counts as infinite.
    const best = new Map<number, number>();
    for (const job of model.waiting) {
      const d = admissionGainDensity(state, job) ?? Number.POSITIVE_INFINITY;
      if (d <= (best.get(job.priority) ?? Number.NEGATIVE_INFINITY)) continue;
      if (neverFits(job) !== undefined) continue;
      best.set(job.priority, d);
    }
    // A running job grows first only against waiting jobs of its own class; one of a higher class comes first.
    const thresholdFor = (priority: number): number | undefined => {
      let t: number | undefined;
      for (const [p, d] of best) {
        if (p > priority) return undefined;
        if (p === priority) t = d;
      }
      return t !== undefined && Number.isFinite(t) ? t : undefined;
    };
    if (best.size > 0) {
      growRunning({
        knee: true,
        skipJobsScaledInThisPass: false,
        limitFor: (job, limit) => {
          const t = thresholdFor(job.job.priority);
          const wg = job.job.workers;
          return t === undefined || wg === undefined ? job.workers.length : growBeforeAdmitLimit(state, wg, job.workers.length, limit, t);
        },
      });
    }
  }

  // Algorithm 1's head loop, once per line: without queues the whole waiting queue is one line;
  // with queues each queue is its own line (ranks compete, and preempt, only within a queue), in
  // the order of `waitingOrder`.
  const lines = new Map<string, CompiledJob[]>();
  for (const job of waitingOrder) {
    const line = lines.get(queueKey(job));
    if (line === undefined) lines.set(queueKey(job), [job]);
    else line.push(job);
  }
  const lastHeads = new Map<string, { head: CompiledJob; reservation: boolean }>();
  let reserved: Uint8Array | undefined;
  for (const [lineKey, line] of lines) {
    let reservation = false;
    // Jobs before `cursor` in the line are admitted or settled; that set only grows.
    let cursor = 0;
    for (;;) {
      let head: CompiledJob | undefined;
      for (; cursor < line.length; cursor++) {
        const job = line[cursor]!;
        if (plan.isAdmitted(job.key) || outcomes.has(job.key)) continue;
        const never = neverFits(job);
        if (never !== undefined) {
          outcomes.set(job.key, { kind: 'never-fits', failure: never, configuration: 'minimum', emptyCluster: model.emptyCluster() });
          continue;
        }
        if (blocked(job, true)) continue;
        head = job;
        break;
      }
      if (head === undefined) break;
      lastHeads.set(lineKey, { head, reservation });
      if (!outranksRunning(head, runningMax(head))) {
        admitThoseThatFit(false, line);
        break;
      }
      // Over its queue's quota, the head may still make room within its queue by preemption.
      const overQuota = gate.blockOf(head);
      const failure = overQuota === undefined ? tryDirect(head) : probe(head);
      // A starving head that others backfill around is also tried on its reserved nodes alone:
      // once they have drained, that is where it is sure to fit (the bound relies on it).
      const backfillAround = head.starving && toggles.backfillWhenHeadBlocked;
      const admitted =
        (overQuota === undefined && (failure === undefined || (backfillAround && tryDirect(head, reservedNodesOf(head)) === undefined))) ||
        tryScaleIn(head, failure, overQuota);
      if (admitted) {
        if (toggles.admitUntilBlocked) continue;
        break;
      }
      if (head.starving) {
        reservation = true;
        lastHeads.set(lineKey, { head, reservation });
        if (backfillAround) {
          const mine = reservedNodesOf(head);
          reserved = reserved === undefined ? mine : reserved.map((x, i) => x | mine[i]!);
          admitThoseThatFit(true, line, { head, reserved: mine });
        }
      } else if (toggles.backfillWhenHeadBlocked) {
        admitThoseThatFit(true, line);
      }
      break;
    }
  }

  // The knee keeps capacity for others; with nobody left waiting (that could ever fit) an extra
  // worker still pays a little and costs nothing, so the knee does not apply.
  const stillWaiting = model.waiting.filter((j) => !plan.isAdmitted(j.key) && outcomes.get(j.key)?.kind !== 'never-fits');
  // A starving job preempts regardless of the scale-out cool-down (its bound needs it), so a worker
  // given to a job it outranks would be taken back by the next pass (thrash). Such jobs do not grow
  // while it waits: the room is kept for it.
  const starving = stillWaiting.filter((j) => j.starving);
  // "Some starving job of its class or above outranks it" is "the top starving job outranks it":
  // waiting jobs are in rank order, and a job of a higher class always ranks higher.
  const preemptibleByStarving = (r: RunningJob): boolean => compareRank(r.job, starving[0]!) > 0;
  // ours (qoeTargets): jobs behind their performance target are served before plain scale-out.
  if (toggles.qoeTargets) {
    rebalanceForTargets(
      state,
      model.running,
      {
        now,
        cooldownMs,
        scaleOut: {
          psNodesFirst: toggles.scaleOutPrefersPsNodes,
          packNodes: toggles.scaleOutPacksNodes,
          skipJobsScaledInThisPass: toggles.cooldown,
          ...(reserved === undefined ? {} : { reserved }),
        },
        mayGrow: (r) => starving.length === 0 || !preemptibleByStarving(r),
        quota: gate.enabled ? { limitFor: (r, limit) => gate.growthLimit(r, limit), mayDonate: (d, r) => gate.mayMove(d, r) } : undefined,
        kneeMinMarginalGain: toggles.scalingKnee && stillWaiting.length > 0 ? config.kneeMinMarginalGain : undefined,
        sizeFromCurve: toggles.qoeSizeFromCurve,
      },
      {
        grow: onGrow,
        donate: (donor, removed, receiver) => {
          if (donor.job.workers !== undefined) gate.charge(donor.job, times(donor.job.workers.requests, removed.length), -1);
          plan.scaleIn(
            donor.job.key,
            removed.map((w) => toInstance(state, w)),
            receiver.job.key,
            { toMeetTarget: true },
          );
        },
      },
    );
  }
  // Queues (reclaim.ts): jobs of queues within their nominal quota grow into it, taking back the
  // borrowed workers of other queues where theirs then fit, before anyone grows into idle room.
  if (gate.enabled) {
    const knee = toggles.scalingKnee && stillWaiting.length > 0 ? config.kneeMinMarginalGain : undefined;
    const limitOf = (r: RunningJob): number => {
      const wg = r.job.workers!;
      if ((toggles.qoeTargets && shrinksAtTarget(r)) || (toggles.cooldown && r.scaledInThisPass)) return r.workers.length;
      if (toggles.demoteConverged && r.job.state.progress?.phase === 'Diverged') return r.workers.length;
      if (starving.length > 0 && preemptibleByStarving(r)) return r.workers.length;
      return kneeLimit(wg.scalingCurve, wg.min, wg.max, knee);
    };
    reclaimForGrowth(state, gate.ledger, gate.growthReceivers(model.running), model.running, limitOf, {
      reclaimed: (victim, removed, receiver) => {
        plan.scaleIn(
          victim.job.key,
          removed.map((w) => toInstance(state, w)),
          receiver.job.key,
          { reclaimedBy: receiver.job.state.spec.queue! },
        );
      },
      grow: (receiver, nodes) => {
        onGrow(receiver, addWorkers(receiver, receiver.job.workers!.type, nodes, now));
      },
    });
  }
  growRunning({
    knee: stillWaiting.length > 0,
    skipJobsScaledInThisPass: toggles.cooldown,
    ...(reserved === undefined ? {} : { reserved }),
    ...(starving.length === 0 ? {} : { limitFor: (job, limit) => (preemptibleByStarving(job) ? job.workers.length : limit) }),
  });

  const waiting: WaitingReason[] = [];
  const texts = new ExplainTexts();
  for (const job of waitingOrder) {
    if (plan.isAdmitted(job.key)) continue;
    const last = lastHeads.get(queueKey(job));
    const outcome: WaitOutcome = outcomes.get(job.key) ?? {
      kind: 'behind-head',
      head: last?.head ?? job,
      reservation: last?.reservation ?? false,
    };
    const reason = explainWaiting(job, outcome, {
      state,
      now,
      starveLimitMs: config.starveLimitMs,
      aging: true,
      items: minimumItems(job),
      texts,
      itemsKey: minimumKey(job),
    });
    waiting.push({ job: job.key, weight: job.weight, starving: job.starving, reason });
  }
  return plan.build(
    gate.withPositions(waiting, model.jobs),
    sortedWeights([...model.jobs.values()].map((j) => [j.key, j.weight] as const)),
  );
}
