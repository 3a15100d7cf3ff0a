// Growth efficiency of one job over one interval and FlowCon's list transitions (Algorithm 1 lines 2–13).
import type { EvaluationPoint, FlowConConfig, FlowConList, FlowConMemory } from './types.ts';

/** Below this magnitude a value is treated as this (a loss at 0 would make any change infinite). */
const TINY = 1e-9;

/**
 * Improvement from `from` to `to` in the metric's own direction, relative to |from|; a change for
 * the worse is no growth (the paper takes |ΔE|, which would reward a loss going up).
 */
export function relativeGain(from: EvaluationPoint, to: EvaluationPoint): number {
  const delta = to.higherIsBetter ? to.value - from.value : from.value - to.value;
  return Math.max(0, delta) / Math.max(TINY, Math.abs(from.value));
}

/** The memory's allowed CPU brought up to `now` at the limits in force since the last round. */
export function accrue(memory: FlowConMemory, now: number, limitMillis: number): FlowConMemory {
  const elapsedSeconds = Math.max(0, now - memory.lastRoundAt) / 1000;
  return {
    ...memory,
    allowedMilliSeconds: memory.allowedMilliSeconds + memory.limitMillis * elapsedSeconds,
    lastRoundAt: now,
    limitMillis,
  };
}

export interface Growth {
  /** Relative gain per CPU-second (Eq. 2 with a relative E). */
  readonly efficiency: number;
  /** Relative gain per core over the interval: compared with α. */
  readonly perCore: number;
  /** Which CPU the gain was divided by: the job's usage counter, or its limits × time. */
  readonly cpu: 'used' | 'allowed';
}

/**
 * CPU-seconds the interval cost: used, from the job's counter, when it has one that grew since the
 * interval started (a re-created container starts its counter again: then, and without one, allowed).
 */
function coreSecondsOf(memory: FlowConMemory, usedNow: number | undefined): { seconds: number; cpu: Growth['cpu'] } {
  const used = usedNow === undefined || memory.usedAtStart === undefined ? undefined : usedNow - memory.usedAtStart;
  if (used !== undefined && used > 0) return { seconds: used / 1000, cpu: 'used' };
  return { seconds: memory.allowedMilliSeconds / 1000, cpu: 'allowed' };
}

/** Growth over the interval the memory holds, ending with `point` at `now`; undefined without CPU. */
export function growthOver(memory: FlowConMemory, point: EvaluationPoint, now: number, usedNow?: number): Growth | undefined {
  const { seconds: coreSeconds, cpu } = coreSecondsOf(memory, usedNow);
  const seconds = (now - memory.startedAt) / 1000;
  if (coreSeconds <= 0 || seconds <= 0) return undefined;
  const gain = relativeGain(memory.start, point);
  return { efficiency: gain / coreSeconds, perCore: gain / (coreSeconds / seconds), cpu };
}

/** Algorithm 1 lines 4–13: below α a job steps New → Watching → Completing; at or above it, back to New. */
export function nextList(list: FlowConList, perCore: number, config: FlowConConfig): FlowConList {
  if (perCore >= config.alpha) return 'New';
  return list === 'New' ? 'Watching' : 'Completing';
}
