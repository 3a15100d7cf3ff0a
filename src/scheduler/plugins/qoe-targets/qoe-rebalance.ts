// DQoES's actions for training jobs (Algorithm 1, lines 16–24, in whole workers): jobs behind their
// performance target receive workers, first from idle capacity, then from jobs ahead of theirs.
// Runs in `ours` after admissions and before plain scale-out, so a behind job is served before idle
// room goes to whoever ranks highest, and admissions keep KOD2's order.
//
//   receivers: Behind, target reachable, below max, and not a job a starving one would take the
//              workers back from; fewest workers needed first (DQoES's aim is the number of jobs
//              that meet their targets, and with whole workers the smallest gaps close first),
//              then furthest behind.
//   need:      ceil(w · required / measured) − w (linear scaling; at least 1), up to max, and while
//              jobs wait up to the knee of a declared scaling curve, like plain scale-out: a
//              worker that adds little is worth more to a waiting job (without it the jobs
//              without targets wait longer: docs/results/log.md §1c).
//   donors:    Ahead jobs of the receiver's priority class or lower (a higher class never gives to a
//              lower class's target), furthest ahead first. Each gives at most
//              max(1, round(β · W_G · q_g / Q_G)) workers per pass (DQoES line 18's cut, with W_G
//              the Ahead jobs' workers: β·W_G below one worker would otherwise never move one), and
//              never so many that linear scaling would put it below its own target or its minimum.
//   moves:     one donor worker for one receiver worker on the same node, where the receiver's
//              worker fits once the donor's is gone; the donor's workers younger than the
//              cool-down stay (what was just placed is not moved again at once).
// A donor's measured rate no longer matches its worker count after a move, so it reads Unknown
// until re-measured: that is the feedback loop's period (DQoES re-reads every interval).

import type { ClusterState } from '../../model/cluster-state.ts';
import { addWorkers, removeWorkers, type LiveReplica, type RunningJob } from '../../model/job-model.ts';
import { readQoe, workersToMeet, workersToSpare, type QoeReading } from '../../model/qoe.ts';
import { workersForTarget } from '../../model/qoe-size.ts';
import { kneeLimit, scaleOut, type ScaleOutOptions } from '../../model/scale-out.ts';

export interface RebalanceOptions {
  readonly now: number;
  readonly cooldownMs: number | undefined;
  /** Scale-out options for the receivers' growth into idle capacity (their need, capped below, is the limit). */
  readonly scaleOut: Omit<ScaleOutOptions, 'kneeMinMarginalGain' | 'limitFor'>;
  /** Whether the job may grow at all this pass (a starving job's room is kept for it). */
  readonly mayGrow: (job: RunningJob) => boolean;
  /** The scaling knee while jobs wait (as plain scale-out): a target is not met with workers that barely pay. */
  readonly kneeMinMarginalGain: number | undefined;
  /** `qoeSizeFromCurve`: needs from the declared scaling curve scaled by the measured rate (qoe-size.ts). */
  readonly sizeFromCurve?: boolean;
  /**
   * Queues with quotas (queue-gate.ts): how far a receiver may grow into idle capacity, and whether
   * a donor's worker may become a receiver's (same queue, and the swap fits its quota). Absent: no quotas.
   */
  readonly quota?: {
    readonly limitFor: (job: RunningJob, limit: number) => number;
    readonly mayDonate: (donor: RunningJob, receiver: RunningJob) => boolean;
  };
}

export interface RebalanceEffects {
  readonly grow: (job: RunningJob, added: readonly LiveReplica[]) => void;
  readonly donate: (donor: RunningJob, removed: readonly LiveReplica[], receiver: RunningJob) => void;
}

interface Standing {
  readonly r: RunningJob;
  readonly reading: QoeReading;
}

function compareKeys(a: RunningJob, b: RunningJob): number {
  return a.job.key < b.job.key ? -1 : a.job.key > b.job.key ? 1 : 0;
}

export function rebalanceForTargets(
  state: ClusterState,
  running: readonly RunningJob[],
  opts: RebalanceOptions,
  effects: RebalanceEffects,
): void {
  const standings: Standing[] = [];
  const receivers: { r: RunningJob; need: number; gap: number }[] = [];
  for (const r of running) {
    if (r.job.workers === undefined || r.job.state.spec.qoe === undefined) continue;
    const reading = r.admittedThisPass ? undefined : readQoe(r.job.state, opts.now);
    if (reading !== undefined) standings.push({ r, reading });
    if (!opts.mayGrow(r) || shrinksAtTarget(r)) continue;
    const need = receiverNeed(r, reading, opts);
    if (need > 0) receivers.push({ r, need, gap: reading?.gap ?? 0 });
  }
  receivers.sort((a, b) => a.need - b.need || a.gap - b.gap || compareKeys(a.r, b.r));
  if (receivers.length === 0) return;

  const ahead = standings.filter((s) => s.reading.class === 'Ahead');
  const aheadWorkers = ahead.reduce((n, s) => n + s.r.workers.length, 0);
  const aheadGap = ahead.reduce((q, s) => q + s.reading.gap!, 0);
  const step = (s: Standing): number => s.r.job.state.spec.qoe?.adjustStep ?? 0;
  const budget = new Map<RunningJob, number>();
  for (const s of ahead) {
    const cut = Math.max(1, Math.round(step(s) * aheadWorkers * (s.reading.gap! / aheadGap)));
    // Workers with no pod yet (grown in this pass, or still being created): the plan deletes before
    // it creates, so they cannot count towards the minimum the donor keeps (as in scale-in.ts).
    const withPods = s.r.workers.length - s.r.podlessIndices.size - s.r.job.workers!.min;
    budget.set(s.r, Math.min(cut, withPods, workersToSpare(s.reading, s.r.workers.length, s.r.job.workers!.min)));
  }
  const donors = ahead.sort((a, b) => b.reading.gap! - a.reading.gap! || compareKeys(a.r, b.r)).map((s) => s.r);

  for (const { r, need } of receivers) {
    const before = r.workers.length;
    const limitFor = (job: RunningJob): number => (opts.quota === undefined ? before + need : opts.quota.limitFor(job, before + need));
    scaleOut(state, [r], opts.now, { ...opts.scaleOut, kneeMinMarginalGain: undefined, limitFor }, effects.grow);
    let left = need - (r.workers.length - before);
    const wg = r.job.workers!;
    const feasible = state.masks.get(wg.maskId).feasible;
    for (const donor of donors) {
      if (left <= 0) break;
      if (donor.job.priority > r.job.priority || opts.quota?.mayDonate(donor, r) === false) continue;
      const dg = donor.job.workers!;
      const taken: LiveReplica[] = [];
      const placedOn: number[] = [];
      const candidates = donor.workers
        .filter(
          (w) =>
            w.node >= 0 &&
            !donor.podlessIndices.has(w.index) &&
            !(opts.cooldownMs !== undefined && w.createdAt !== undefined && opts.now - w.createdAt < opts.cooldownMs),
        )
        .sort((a, b) => b.index - a.index);
      for (const w of candidates) {
        if (left <= 0 || (budget.get(donor) ?? 0) <= 0) break;
        const n = w.node;
        if (feasible[n] !== 1 || state.ready[n] !== 1 || opts.scaleOut.reserved?.[n] === 1) continue;
        state.adjust(n, dg.vec, 1);
        if (!state.fits(n, wg.vec)) {
          state.adjust(n, dg.vec, -1);
          continue;
        }
        state.adjust(n, wg.vec, -1);
        taken.push(w);
        placedOn.push(n);
        budget.set(donor, budget.get(donor)! - 1);
        left--;
      }
      if (taken.length === 0) continue;
      removeWorkers(donor, taken);
      effects.donate(donor, taken, r);
      effects.grow(r, addWorkers(r, wg.type, placedOn, opts.now));
    }
  }
}

/**
 * Workers `r` should receive this pass (0: none). A Behind job with a reachable target: what linear
 * scaling says it lacks, capped at the knee while jobs wait. With `sizeFromCurve` (qoe-size.ts): the
 * size its declared curve, scaled by its measured rate, says meets the target, up to its maximum
 * (a target is not met with the knee's size); and also a deadline job that slips (`slipsDeadline`).
 * A job whose rate with its present workers is not measured yet receives nothing: growing those
 * from the curve too cost the jobs without targets more (docs/results/log.md §1c′, "Rules
 * tried and not kept").
 */
export function receiverNeed(
  r: RunningJob,
  reading: QoeReading | undefined,
  opts: Pick<RebalanceOptions, 'now' | 'kneeMinMarginalGain' | 'sizeFromCurve'>,
): number {
  const wg = r.job.workers;
  if (reading === undefined || wg === undefined || reading.unreachable !== undefined) return 0;
  const have = r.workers.length;
  if (opts.sizeFromCurve === true && (reading.class === 'Behind' || slipsDeadline(r, reading))) {
    const size = workersForTarget(r.job.state, opts.now);
    if (size !== undefined) return Math.max(0, size - have);
  }
  if (reading.class !== 'Behind') return 0;
  const cap = kneeLimit(wg.scalingCurve, wg.min, wg.max, opts.kneeMinMarginalGain);
  return Math.max(0, Math.min(cap - have, workersToMeet(reading, have)));
}

/**
 * A deadline job within the tolerance of its required rate but below it: Satisfied, yet the rate it
 * needs rises every pass it runs so, and it ends past its deadline (DQoES's tolerance is for a rate
 * target; a deadline is met only at the required rate or above).
 */
export function slipsDeadline(r: RunningJob, reading: QoeReading): boolean {
  return (
    r.job.state.spec.qoe?.deadline !== undefined &&
    reading.class === 'Satisfied' &&
    reading.measured !== undefined &&
    reading.required !== undefined &&
    reading.measured < reading.required
  );
}

/** A running job whose metric reached its target and that asked to shrink then (`spec.qoe.onTargetMetric: Shrink`). */
export function shrinksAtTarget(r: RunningJob): boolean {
  return r.job.state.spec.qoe?.metric?.onReached === 'Shrink' && r.job.state.progress?.targetReached === true;
}

/**
 * Scales every job that reached its metric target (and asked to shrink) down to its minimum: the
 * room goes to others in the same pass. Workers with no pod yet are kept.
 */
export function shrinkAtTargets(
  state: ClusterState,
  running: readonly RunningJob[],
  shrink: (job: RunningJob, removed: readonly LiveReplica[]) => void,
): void {
  for (const r of running) {
    const wg = r.job.workers;
    if (wg === undefined || r.admittedThisPass || !shrinksAtTarget(r)) continue;
    const removable = r.workers.filter((w) => !r.podlessIndices.has(w.index)).sort((a, b) => b.index - a.index);
    const removed = removable.slice(0, Math.max(0, r.workers.length - wg.min));
    if (removed.length === 0) continue;
    for (const w of removed) if (w.node >= 0) state.adjust(w.node, wg.vec, 1);
    removeWorkers(r, removed);
    shrink(r, removed);
  }
}
