// Per-team figures of a run (scenarios with `teams`; docs/results/log.md §1d): each team's
// share of the cluster's scarcest resource, overall and while every team has jobs waiting
// (contended: each would use more than it holds), its jobs' completion times, and how long its first job waited.

import type { Resources } from '../../src/scheduler/types.ts';
import type { SimulationResult, TimelineSample } from './engine.ts';

export interface TeamFigure {
  readonly name: string;
  readonly jobs: number;
  readonly finished: number;
  readonly meanJct: number | null;
  /** Its share of the resource-seconds all teams held, over the run. */
  readonly share: number;
  /** The same over the contended seconds only; null when there were none. */
  readonly contendedShare: number | null;
  /** Submission → start of its first job (by submission); null if it never started. */
  readonly firstJobWait: number | null;
}

export interface TeamFigures {
  /** The resource the shares are of: GPUs when the cluster has them, else cpu. */
  readonly resource: string;
  /** Seconds during which every team had a job waiting (each would have used more than it held). */
  readonly contendedSeconds: number;
  readonly teams: readonly TeamFigure[];
}

/** Integral over [start, end) of `value` on the step function `samples`. */
function integral(samples: readonly TimelineSample[], start: number, end: number, value: (s: TimelineSample) => number): number {
  let sum = 0;
  samples.forEach((sample, i) => {
    const from = Math.max(sample.t, start);
    const to = Math.min(samples[i + 1]?.t ?? end, end);
    if (to > from) sum += value(sample) * (to - from);
  });
  return sum;
}

export function teamFigures(result: SimulationResult, capacity: Resources): TeamFigures | null {
  const names = [...new Set(result.jobs.flatMap((j) => (j.team === null ? [] : [j.team])))].sort();
  if (names.length === 0) return null;
  const resource = (capacity['nvidia.com/gpu'] ?? 0) > 0 ? 'nvidia.com/gpu' : 'cpu';
  const held = (s: TimelineSample, team: string): number => s.teams?.[team]?.allocated[resource] ?? 0;
  const contended = (s: TimelineSample): boolean => names.every((n) => (s.teams?.[n]?.waitingJobs ?? 0) > 0);
  const { timeline, start, end } = result;
  const total = integral(timeline, start, end, (s) => names.reduce((sum, n) => sum + held(s, n), 0));
  const totalContended = integral(timeline, start, end, (s) => (contended(s) ? names.reduce((sum, n) => sum + held(s, n), 0) : 0));
  const contendedSeconds = integral(timeline, start, end, (s) => (contended(s) ? 1 : 0));
  const teams = names.map((name): TeamFigure => {
    const jobs = result.jobs.filter((j) => j.team === name);
    const finished = jobs.filter((j) => j.jct !== null);
    const first = [...jobs].sort((a, b) => a.submitted - b.submitted || (a.name < b.name ? -1 : 1))[0]!;
    return {
      name,
      jobs: jobs.length,
      finished: finished.length,
      meanJct: finished.length > 0 ? finished.reduce((s, j) => s + j.jct!, 0) / finished.length : null,
      share: total > 0 ? integral(timeline, start, end, (s) => held(s, name)) / total : 0,
      contendedShare:
        totalContended > 0 ? integral(timeline, start, end, (s) => (contended(s) ? held(s, name) : 0)) / totalContended : null,
      firstJobWait: first.waited,
    };
  });
  return { resource, contendedSeconds, teams };
}
