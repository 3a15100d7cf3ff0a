// A job's training speed (global steps per second) from the steps its progress signal reports, for
// performance targets (DQoES's "measured QoE"). A rate only describes the worker count it was
// measured with, so the series starts over whenever that count changes, and the first moments
// after a change (new workers joining, the others re-synchronising) are left out. Pure: the caller
// passes the samples read since the last round, the job's running worker count and the clock.

import type { ProgressSample } from './protocol.ts';

export interface RateConfig {
  /** Samples within this long after a worker-count change are ignored (ms). */
  readonly settleMs: number;
  /** The rate is the slope over the samples of this last span (ms). */
  readonly windowMs: number;
  /** No rate until the kept samples span at least this long (ms): one step line is not a speed. */
  readonly minSpanMs: number;
}

/** The settling time and minimum span as fixed shares of the window (20 s and 30 s of the default 5 min). */
export function rateConfig(windowMs: number): RateConfig {
  return { settleMs: windowMs / 15, windowMs, minSpanMs: windowMs / 10 };
}

export const DEFAULT_RATE_CONFIG: RateConfig = rateConfig(5 * 60_000);

interface StepPoint {
  readonly time: number;
  readonly step: number;
}

export interface RateState {
  readonly workers: number;
  /** When the present worker count was first seen (ms). */
  readonly since: number;
  /** Samples inside the window, oldest first (at most a few dozen: the window bounds them). */
  readonly points: readonly StepPoint[];
  /** Latest global step seen, whatever the worker count (a deadline's progress). */
  readonly step?: number;
  /** When `step` was reported (ms). */
  readonly stepAt?: number;
}

/** Kept samples at most, whatever the window: a job printing every step must not grow the state. */
const MAX_POINTS = 64;

/** Folds one round's samples into the series. */
export function foldSteps(
  prev: RateState | undefined,
  samples: readonly ProgressSample[],
  workers: number,
  now: number,
  config: RateConfig = DEFAULT_RATE_CONFIG,
): RateState {
  let state: RateState =
    prev !== undefined && prev.workers === workers
      ? prev
      : { workers, since: now, points: [], ...(prev?.step === undefined ? {} : { step: prev.step, stepAt: prev.stepAt }) };
  for (const s of samples) {
    if (s.step === undefined || s.time === undefined) continue;
    if (state.stepAt === undefined || s.time >= state.stepAt) state = { ...state, step: s.step, stepAt: s.time };
    const tail = state.points.at(-1);
    // A lower step at a later time: the job restarted from an older checkpoint, a new series.
    if (tail !== undefined && s.step < tail.step && s.time > tail.time) state = { ...state, points: [] };
    const last = state.points.at(-1);
    if (s.time < state.since + config.settleMs || (last !== undefined && (s.time <= last.time || s.step < last.step))) continue;
    state = { ...state, points: [...state.points, { time: s.time, step: s.step }] };
  }
  const latest = state.points.at(-1)?.time;
  if (latest !== undefined) {
    let from = 0;
    while (from < state.points.length - 2 && state.points[from + 1]!.time <= latest - config.windowMs) from++;
    from = Math.max(from, state.points.length - MAX_POINTS);
    if (from > 0) state = { ...state, points: state.points.slice(from) };
  }
  return state;
}

export interface MeasuredRate {
  readonly stepsPerSecond: number;
  readonly step: number;
  readonly workers: number;
  readonly from: number;
  readonly to: number;
}

/** The measured rate, or undefined while the samples since the last change span too little. */
export function measuredRate(state: RateState | undefined, config: RateConfig = DEFAULT_RATE_CONFIG): MeasuredRate | undefined {
  if (state === undefined || state.points.length < 2) return undefined;
  const first = state.points[0]!;
  const last = state.points.at(-1)!;
  const span = last.time - first.time;
  if (span < config.minSpanMs) return undefined;
  return {
    stepsPerSecond: ((last.step - first.step) * 1000) / span,
    step: state.step ?? last.step,
    workers: state.workers,
    from: first.time,
    to: last.time,
  };
}
