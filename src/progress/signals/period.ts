// Adaptive evaluation period: FlowCon Algorithm 2 (the listener) with Algorithm 1 lines 14–17. While
// every job is converged there is little to learn from reading logs, so the period doubles (up to a
// cap); a job arriving or finishing resets it, because then the picture changes.

export interface PeriodConfig {
  /** FlowCon tested itval 20–60 s, SpeCon 20/25/30 s and used 30 s for its later runs. */
  readonly initialMs: number;
  /** Doubling stops here: a job that starts progressing again is noticed within this long. */
  readonly maxMs: number;
}

export const DEFAULT_PERIOD_CONFIG: PeriodConfig = { initialMs: 30_000, maxMs: 240_000 };

export interface PeriodState {
  readonly periodMs: number;
  /** The jobs of the last round, sorted: FlowCon compares counts, a set also catches one-in-one-out. */
  readonly jobs: readonly string[];
}

export interface PeriodRound {
  /** Keys of the jobs whose progress is being followed (e.g. namespace/name of running TFJobs). */
  readonly jobs: readonly string[];
  /**
   * Every one of them is quiet: Converged, or meeting its performance target (a job with no
   * information is not).
   */
  readonly allConverged: boolean;
}

function sameJobs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The period until the next round, given the previous state and what this round saw. */
export function nextPeriod(prev: PeriodState | undefined, round: PeriodRound, config: PeriodConfig = DEFAULT_PERIOD_CONFIG): PeriodState {
  const jobs = [...new Set(round.jobs)].sort();
  if (prev === undefined || !sameJobs(prev.jobs, jobs)) return { periodMs: config.initialMs, jobs };
  // No jobs: nothing to read, and the next job's arrival resets anyway; do not back off on a vacuous "all".
  if (jobs.length === 0 || !round.allConverged) return { periodMs: config.initialMs, jobs };
  return { periodMs: Math.min(config.maxMs, prev.periodMs * 2), jobs };
}

/**
 * FlowCon's listener interrupts the current interval when containers come or go: the caller runs a
 * round at once when this says the job set changed (an informer add/delete between rounds).
 */
export function jobSetChanged(prev: PeriodState | undefined, jobs: readonly string[]): boolean {
  return prev === undefined || !sameJobs(prev.jobs, [...new Set(jobs)].sort());
}
