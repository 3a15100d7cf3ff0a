// The figures of docs/simulation-results.md §1 for one run, computed from its job outcomes and timeline.
import type { Resources } from '../../src/scheduler/types.ts';
import type { LowerBounds } from './bounds.ts';
import type { SimulationResult } from './engine.ts';
import type { Distribution } from './stats.ts';
import { distribution, timeWeightedMean } from './stats.ts';
import { teamFigures, type TeamFigures } from './teams.ts';

export interface Summary {
  readonly jobs: number;
  readonly finished: number;
  readonly unfinished: number;
  /** JCT of finished jobs. */
  readonly jct: Distribution | null;
  /** JCT with every unfinished job counted as finishing at the horizon. */
  readonly jctInclUnfinished: Distribution | null;
  /** Time of the last completion since the scenario's time 0; null when a job is unfinished. */
  readonly makespan: number | null;
  /** Submission → first pod bound, over jobs that started. */
  readonly waiting: { readonly mean: number; readonly max: number } | null;
  readonly neverStarted: number;
  /** Submission → first progress, over jobs that progressed. */
  readonly waitingToProgress: { readonly mean: number; readonly max: number } | null;
  /** Submission → metric within 1% of its final value, over jobs that print a metric and got there. */
  readonly timeToAccuracy: { readonly mean: number; readonly max: number } | null;
  /** Whole jobs sent back to the queue (Plan.suspend). */
  readonly suspensions: number;
  /** Time-weighted mean share of each resource's capacity, from the first arrival to the end of the run. */
  readonly utilisation: { readonly allocated: Resources; readonly useful: Resources };
  readonly meanQueue: { readonly waitingJobs: number; readonly pendingPods: number };
  readonly preemptedWorkers: number;
  readonly scaleOuts: number;
  readonly pods: { readonly created: number; readonly deleted: number; readonly succeeded: number };
  readonly lowerBounds: {
    readonly meanIdealJct: number;
    readonly makespan: number;
    readonly arrivalBound: number;
    readonly workBound: number;
    readonly workBoundResource: string;
  };
  /**
   * Finished jobs faster than their ideal JCT. Zero on kod2-paper; on Philly the measured step
   * times do not always favour packing (a spread placement was sometimes measured faster), so the
   * ideal of docs/simulation-results.md §1 (max workers on the fewest nodes) is not a strict bound there.
   */
  readonly jobsFasterThanIdeal: number;
  /** Run / bound. */
  readonly toLowerBound: {
    readonly meanJct: number | null;
    readonly meanJctInclUnfinished: number | null;
    /** Mean over finished jobs of JCT / that job's ideal JCT. */
    readonly meanSlowdown: number | null;
    readonly makespan: number | null;
  };
  readonly window: { readonly start: number; readonly end: number; readonly horizon: number };
  readonly engine: { readonly events: number; readonly passes: number; readonly unconvergedEvents: number };
  /** Performance targets (scenarios with `targets`); null when no job states one. */
  readonly qoe: QoeSummary | null;
  /** Per-team shares and waits (scenarios with `teams`); null without teams. */
  readonly teams: TeamFigures | null;
}

export interface QoeSummary {
  readonly targetedJobs: number;
  /** Targeted jobs whose target was met (JobQoeOutcome.met): DQoES's satisfied jobs, per job. */
  readonly jobsMetFraction: number;
  readonly throughputJobs: number;
  /** Throughput targets: seconds met / seconds tracked, summed over the jobs (submission to finish; waiting never meets). */
  readonly throughputMetFraction: number | null;
  /** The same over the seconds the jobs ran (DQoES's time-weighted |S ∪ G| share among running jobs). */
  readonly throughputMetWhileRunning: number | null;
  /** Throughput jobs whose mean rate while running was at least (1 − α) × their target. */
  readonly throughputJobsMet: number;
  readonly deadlineJobs: number;
  readonly deadlinesMet: number;
  readonly deadlineMetFraction: number | null;
  /** Mean JCT of the finished jobs that state no target (the cost of serving targets to the others). */
  readonly untargetedMeanJct: number | null;
}

function qoeSummary(result: SimulationResult): QoeSummary | null {
  const targeted = result.jobs.filter((j) => j.qoe !== null);
  if (targeted.length === 0) return null;
  const throughput = targeted.filter((j) => j.qoe!.kind === 'throughput');
  const deadline = targeted.filter((j) => j.qoe!.kind === 'deadline');
  const tracked = throughput.reduce((s, j) => s + j.qoe!.trackedSeconds, 0);
  const met = throughput.reduce((s, j) => s + j.qoe!.metSeconds, 0);
  const ran = throughput.reduce((s, j) => s + j.qoe!.runningSeconds, 0);
  const deadlinesMet = deadline.filter((j) => j.qoe!.deadlineMet === true).length;
  const untargeted = result.jobs.filter((j) => j.qoe === null && j.jct !== null);
  return {
    targetedJobs: targeted.length,
    throughputJobs: throughput.length,
    throughputMetFraction: tracked > 0 ? met / tracked : null,
    throughputMetWhileRunning: ran > 0 ? met / ran : null,
    throughputJobsMet: throughput.filter((j) => j.qoe!.met).length,
    jobsMetFraction: targeted.filter((j) => j.qoe!.met).length / targeted.length,
    deadlineJobs: deadline.length,
    deadlinesMet,
    deadlineMetFraction: deadline.length > 0 ? deadlinesMet / deadline.length : null,
    untargetedMeanJct: untargeted.length > 0 ? untargeted.reduce((s, j) => s + j.jct!, 0) / untargeted.length : null,
  };
}

function shares(
  capacity: Resources,
  pick: (sample: SimulationResult['timeline'][number]) => Resources,
  result: SimulationResult,
): Resources {
  const out: Record<string, number> = {};
  for (const [name, total] of Object.entries(capacity)) {
    if (total <= 0) continue;
    out[name] = timeWeightedMean(result.timeline, result.start, result.end, (s) => (pick(s)[name] ?? 0) / total);
  }
  return out;
}

function meanAndMax(values: readonly number[]): { mean: number; max: number } | null {
  return values.length === 0 ? null : { mean: values.reduce((s, v) => s + v, 0) / values.length, max: Math.max(...values) };
}

export function summarize(result: SimulationResult, bounds: LowerBounds): Summary {
  const finished = result.jobs.filter((j) => j.jct !== null);
  const unfinished = result.jobs.length - finished.length;
  const jct = distribution(finished.map((j) => j.jct!));
  const jctInclUnfinished = distribution(result.jobs.map((j) => j.jct ?? result.horizon - j.submitted));
  const waits = result.jobs.flatMap((j) => (j.waited === null ? [] : [j.waited]));
  const progressWaits = result.jobs.flatMap((j) => (j.waitedToProgress === null ? [] : [j.waitedToProgress]));
  const slowdowns = finished.map((j) => j.jct! / bounds.idealJct[j.name]!);
  const jobsFasterThanIdeal = slowdowns.filter((v) => v < 1 - 1e-9).length;
  const makespan = unfinished === 0 ? Math.max(...finished.map((j) => j.finished!)) : null;
  return {
    jobs: result.jobs.length,
    finished: finished.length,
    unfinished,
    jct,
    jctInclUnfinished,
    makespan,
    waiting: meanAndMax(waits),
    neverStarted: result.jobs.length - waits.length,
    waitingToProgress: meanAndMax(progressWaits),
    timeToAccuracy: meanAndMax(result.jobs.flatMap((j) => (j.timeToAccuracy === null ? [] : [j.timeToAccuracy]))),
    suspensions: result.jobs.reduce((sum, j) => sum + j.suspensions, 0),
    utilisation: {
      allocated: shares(result.capacity, (s) => s.allocated, result),
      useful: shares(result.capacity, (s) => s.useful, result),
    },
    meanQueue: {
      waitingJobs: timeWeightedMean(result.timeline, result.start, result.end, (s) => s.waitingJobs),
      pendingPods: timeWeightedMean(result.timeline, result.start, result.end, (s) => s.pendingPods),
    },
    preemptedWorkers: result.jobs.reduce((sum, j) => sum + j.preemptedWorkers, 0),
    scaleOuts: result.jobs.reduce((sum, j) => sum + j.scaleOuts, 0),
    pods: result.pods,
    lowerBounds: {
      meanIdealJct: bounds.meanIdealJct,
      makespan: bounds.makespan,
      arrivalBound: bounds.arrivalBound,
      workBound: bounds.workBound,
      workBoundResource: bounds.workBoundResource,
    },
    jobsFasterThanIdeal,
    toLowerBound: {
      meanJct: jct === null ? null : jct.mean / bounds.meanIdealJct,
      meanJctInclUnfinished: jctInclUnfinished === null ? null : jctInclUnfinished.mean / bounds.meanIdealJct,
      meanSlowdown: slowdowns.length === 0 ? null : slowdowns.reduce((s, v) => s + v, 0) / slowdowns.length,
      makespan: makespan === null ? null : makespan / bounds.makespan,
    },
    window: { start: result.start, end: result.end, horizon: result.horizon },
    engine: { events: result.events, passes: result.passes, unconvergedEvents: result.unconvergedEvents },
    qoe: qoeSummary(result),
    teams: teamFigures(result, result.capacity),
  };
}
