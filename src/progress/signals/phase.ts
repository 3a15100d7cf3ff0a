// Per-job progress phase: SpeCon's PC/WC/CC (Progressing / Slowing / Converged) with the transition
// rules of docs/progress-protocol.md ("Transitions"), driven by a scale-free growth of the EMA-smoothed metric.
// Pure and deterministic: the caller passes the samples read since the last round and the clock.

import type { ProgressSample } from './protocol.ts';

export type Phase = 'Progressing' | 'Slowing' | 'Converged';

export interface PhaseConfig {
  /**
   * α: growth below it counts as slow. Growth is relative improvement per relative progress, so 0.2
   * reads "10% more training buys less than 2% more improvement". SpeCon tested α ∈ {0.01, 0.05, 0.1}
   * on its own (unnormalised) growth; this normalisation needs its own value, and 0.2 is the one that
   * reaches Converged before the time to accuracy on most Philly validation curves without flapping
   * (test/unit/progress/signals/phase.test.ts, docs/progress-protocol.md).
   */
  readonly alpha: number;
  /** Hysteresis: leaving Slowing/Converged needs growth ≥ exitFactor·α ... */
  readonly exitFactor: number;
  /** ... on this many consecutive rounds (SpeCon returns to PC on one round above α; noise does that). */
  readonly exitRounds: number;
  /** EMA weight of the previous smoothed value per new sample (the new sample gets 1 − smoothing). */
  readonly smoothing: number;
  /** Growth is measured over this last fraction of the job's progress, not over one round: late in a
   * run one round is a tiny step of progress, and noise divided by a tiny step is large. */
  readonly window: number;
  /** No sample for this long (and for staleGaps typical gaps between samples) → no information. */
  readonly staleAfterMs: number;
  readonly staleGaps: number;
}

export const DEFAULT_PHASE_CONFIG: PhaseConfig = {
  alpha: 0.2,
  exitFactor: 2,
  exitRounds: 2,
  smoothing: 0.7,
  window: 1 / 3,
  staleAfterMs: 10 * 60_000,
  staleGaps: 3,
};

interface Point {
  /** Progress: global step, or seconds since the first sample when steps are unknown. */
  readonly x: number;
  /** Improvement of the smoothed metric over its first value, positive = better. */
  readonly improvement: number;
}

/** Everything the machine remembers about one job. Plain data (can be kept in a cache or logged). */
export interface PhaseState {
  readonly phase: Phase;
  /** When the current phase was entered (ms, the caller's clock). */
  readonly since: number;
  readonly name: string;
  readonly higherIsBetter: boolean;
  /** Fixed for a series: steps when its first sample had one, else time. */
  readonly axis: 'step' | 'time';
  readonly ema: number;
  /** The value of the last sample, unsmoothed. */
  readonly latest?: number;
  readonly first: number;
  /** Largest improvement seen: the scale growth is measured against. */
  readonly best: number;
  readonly points: readonly Point[];
  /** Growth of the last round that had one (the rules compare it with the next). */
  readonly growth?: number;
  /** Consecutive rounds with growth ≥ exitFactor·α. */
  readonly risingRounds: number;
  readonly firstSampleAt: number;
  readonly lastSampleAt: number;
  /** Smoothed time between samples, for staleness. */
  readonly gapMs?: number;
  readonly step?: number;
  readonly epoch?: number;
  readonly target?: number;
}

/** What the rest of the operator sees; undefined means "no information" (schedule as without progress). */
export interface ProgressView {
  /** The machine's phase, or Diverged: the log showed a NaN or infinite loss or metric (the reader's). */
  readonly phase: Phase | 'Diverged';
  /** Why, for Diverged. */
  readonly detail?: string;
  readonly since: number;
  /** The smoothed metric (EMA), on which the phase is judged. */
  readonly metric: number;
  /** The last sample's value as the log printed it. */
  readonly latest?: number;
  readonly name: string;
  readonly higherIsBetter: boolean;
  readonly growth?: number;
  readonly lastUpdate: number;
  readonly step?: number;
  readonly epoch?: number;
  /** The job's declared plan as its log gave it (the reader's; docs/progress-protocol.md). */
  readonly epochs?: number;
  readonly totalSteps?: number;
  readonly target?: number;
}

/** Hard bound on remembered points (the thinning in `remember` keeps far fewer). */
const MAX_POINTS = 64;
const STEP_DOWN: Readonly<Record<Phase, Phase>> = { Progressing: 'Slowing', Slowing: 'Converged', Converged: 'Converged' };

function start(sample: ProgressSample, time: number, now: number): PhaseState {
  // SpeCon puts every new container into PC; a new series is a new job as far as growth goes.
  return {
    phase: 'Progressing',
    since: now,
    name: sample.name,
    higherIsBetter: sample.higherIsBetter,
    axis: sample.step !== undefined ? 'step' : 'time',
    ema: sample.value,
    latest: sample.value,
    first: sample.value,
    best: 0,
    points: [],
    risingRounds: 0,
    firstSampleAt: time,
    lastSampleAt: time,
    ...(sample.step !== undefined ? { step: sample.step } : {}),
    ...(sample.epoch !== undefined ? { epoch: sample.epoch } : {}),
    ...(sample.target !== undefined ? { target: sample.target } : {}),
  };
}

type Fold = { readonly state: PhaseState; readonly fresh: boolean };

/** Adds one sample to the series, or starts a new series, or ignores a duplicate. */
function fold(prev: PhaseState | undefined, sample: ProgressSample, now: number, config: PhaseConfig): Fold {
  const time = sample.time ?? now;
  if (prev === undefined || sample.name !== prev.name || sample.higherIsBetter !== prev.higherIsBetter) {
    return { state: start(sample, time, now), fresh: true };
  }
  if (prev.axis === 'step') {
    if (sample.step === undefined) return { state: prev, fresh: false };
    if (prev.step !== undefined && sample.step <= prev.step) {
      // An older step again: a re-read of lines already seen, unless the log says it is newer (the
      // job restarted from scratch or from an older checkpoint: the curve starts over).
      if (sample.time !== undefined && sample.time > prev.lastSampleAt) return { state: start(sample, time, now), fresh: true };
      return { state: prev, fresh: false };
    }
  } else if (sample.time !== undefined && sample.time <= prev.lastSampleAt) {
    // Time axis: a line not newer than the last one is a re-read (lines without a time cannot be told apart).
    return { state: prev, fresh: false };
  }
  const gap = time - prev.lastSampleAt;
  const gapMs = gap > 0 ? (prev.gapMs === undefined ? gap : 0.7 * prev.gapMs + 0.3 * gap) : prev.gapMs;
  return {
    state: {
      ...prev,
      ema: config.smoothing * prev.ema + (1 - config.smoothing) * sample.value,
      latest: sample.value,
      lastSampleAt: Math.max(prev.lastSampleAt, time),
      ...(gapMs !== undefined ? { gapMs } : {}),
      ...(sample.step !== undefined ? { step: sample.step } : {}),
      ...(sample.epoch !== undefined ? { epoch: sample.epoch } : {}),
      ...(sample.target !== undefined ? { target: sample.target } : {}),
    },
    fresh: true,
  };
}

/** The reference point for growth: the latest one at or before the window's start, else the oldest. */
function reference(points: readonly Point[], x: number, window: number): Point | undefined {
  let ref = points[0];
  for (const p of points) if (p.x <= (1 - window) * x) ref = p;
  return ref;
}

/** Appends the round's point, keeping only what future windows can need (points only move forward). */
function remember(points: readonly Point[], point: Point, window: number): Point[] {
  // Retained points stay at least 1/32 of the window apart in relative progress; a round closer than
  // that to the point before the last replaces the last (it only moves forward), so many small rounds
  // cannot crowd out the older points the window needs.
  const beforeLast = points.at(-2);
  const crowded = beforeLast !== undefined && point.x <= beforeLast.x * (1 + window / 32);
  const next = crowded ? [...points.slice(0, -1), point] : [...points, point];
  let keepFrom = 0;
  next.forEach((p, i) => {
    if (p.x <= (1 - window) * point.x) keepFrom = i;
  });
  return next.slice(Math.max(keepFrom, next.length - MAX_POINTS));
}

/**
 * One evaluation round for one job: folds the samples read since the last round into the state and,
 * if any was new, takes at most one phase step. Without new samples the state is returned unchanged:
 * silence is not convergence (an epoch can take longer than a round). Undefined only if there is
 * neither a previous state nor a usable sample.
 */
export function evaluatePhase(
  prev: PhaseState | undefined,
  samples: readonly ProgressSample[],
  now: number,
  config: PhaseConfig = DEFAULT_PHASE_CONFIG,
): PhaseState | undefined {
  let state = prev;
  let fresh = false;
  for (const sample of samples) {
    const r = fold(state, sample, now, config);
    state = r.state;
    fresh ||= r.fresh;
  }
  if (state === undefined || !fresh) return state;

  const direction = state.higherIsBetter ? 1 : -1;
  const x = state.axis === 'step' ? (state.step ?? 0) : (state.lastSampleAt - state.firstSampleAt) / 1000;
  const improvement = direction * (state.ema - state.first);
  const best = Math.max(state.best, improvement);
  // A series that (re)started this round has no points yet: no growth before a second round.
  const ref = reference(state.points, x, config.window);
  const growth =
    ref !== undefined && x > ref.x && x > 0 && best > 0 ? (improvement - ref.improvement) / best / ((x - ref.x) / x) : undefined;

  let phase = state.phase;
  let risingRounds = state.risingRounds;
  const targetReached = state.target !== undefined && direction * (state.ema - state.target) >= 0;
  if (targetReached) {
    // The job said what is good enough, and it is there: no need to wait for the curve to flatten.
    phase = 'Converged';
  } else if (growth !== undefined) {
    risingRounds = growth >= config.exitFactor * config.alpha ? risingRounds + 1 : 0;
    if (risingRounds >= config.exitRounds) phase = 'Progressing';
    // SpeCon Algorithm 1 with F1's fix: one step down per round while growth is below α and falling;
    // below α but rising: stay (the "bouncing" a noisy curve shows).
    else if (growth < config.alpha && state.growth !== undefined && growth < state.growth) phase = STEP_DOWN[phase];
  }

  return {
    ...state,
    phase,
    since: phase === state.phase ? state.since : now,
    best,
    points: remember(state.points, { x, improvement }, config.window),
    risingRounds,
    ...(growth !== undefined ? { growth } : {}),
  };
}

/** The job's progress as the scheduler may use it now, or undefined when the signal is stale. */
export function progressView(
  state: PhaseState | undefined,
  now: number,
  config: PhaseConfig = DEFAULT_PHASE_CONFIG,
): ProgressView | undefined {
  if (state === undefined) return undefined;
  const limit = Math.max(config.staleAfterMs, config.staleGaps * (state.gapMs ?? 0));
  if (now - state.lastSampleAt > limit) return undefined;
  return {
    phase: state.phase,
    since: state.since,
    metric: state.ema,
    ...(state.latest !== undefined ? { latest: state.latest } : {}),
    name: state.name,
    higherIsBetter: state.higherIsBetter,
    lastUpdate: state.lastSampleAt,
    ...(state.growth !== undefined ? { growth: state.growth } : {}),
    ...(state.step !== undefined ? { step: state.step } : {}),
    ...(state.epoch !== undefined ? { epoch: state.epoch } : {}),
    ...(state.target !== undefined ? { target: state.target } : {}),
  };
}
