// DQoES Algorithm 2: how often the vertical rule runs. Q_G (how far ahead the G jobs are, summed) and
// Q_B (how far behind the B jobs are, summed) both shrinking for three rounds in a row means the
// node is converging on S: the interval doubles (up to a cap). Fewer jobs in S than the round before
// means the stable state broke (a job slowed down, a new one came): back to the first interval, and
// a round at once. Anything else keeps the interval. Pure.
import type { QoeClass } from './rule.ts';

export interface DqoesIntervalConfig {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Consecutive converging rounds before the interval doubles (the paper: 3). */
  readonly convergingRounds: number;
}

export interface DqoesIntervalState {
  readonly intervalMs: number;
  /** Σ distance of the jobs ahead of their target (Q_G), last round. */
  readonly aheadDistance: number;
  /** Σ distance of the jobs behind their target (|Q_B|), last round. */
  readonly behindDistance: number;
  /** |S| last round. */
  readonly satisfied: number;
  readonly convergingFor: number;
}

export interface ClassifiedJob {
  readonly qoeClass?: QoeClass;
  readonly distance?: number;
}

export interface IntervalDecision {
  readonly state: DqoesIntervalState;
  /** The stable state broke: run again at once rather than after the interval. */
  readonly runNow: boolean;
}

function summary(jobs: readonly ClassifiedJob[]): Pick<DqoesIntervalState, 'aheadDistance' | 'behindDistance' | 'satisfied'> {
  const sum = (c: QoeClass) => jobs.filter((j) => j.qoeClass === c).reduce((a, j) => a + (j.distance ?? 1), 0);
  return {
    aheadDistance: sum('Ahead'),
    behindDistance: sum('Behind'),
    satisfied: jobs.filter((j) => j.qoeClass === 'Satisfied').length,
  };
}

export function nextDqoesInterval(
  previous: DqoesIntervalState | undefined,
  jobs: readonly ClassifiedJob[],
  config: DqoesIntervalConfig,
): IntervalDecision {
  const now = summary(jobs);
  if (previous === undefined) return { state: { ...now, intervalMs: config.initialMs, convergingFor: 0 }, runNow: false };
  if (now.satisfied < previous.satisfied) return { state: { ...now, intervalMs: config.initialMs, convergingFor: 0 }, runNow: true };
  const converging = now.aheadDistance < previous.aheadDistance && now.behindDistance < previous.behindDistance;
  if (!converging) return { state: { ...now, intervalMs: previous.intervalMs, convergingFor: 0 }, runNow: false };
  const convergingFor = previous.convergingFor + 1;
  if (convergingFor < config.convergingRounds) return { state: { ...now, intervalMs: previous.intervalMs, convergingFor }, runNow: false };
  return { state: { ...now, intervalMs: Math.min(config.maxMs, 2 * previous.intervalMs), convergingFor: 0 }, runNow: false };
}
