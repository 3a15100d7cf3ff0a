// Performance targets (DQoES Algorithm 1's classification, for training jobs): each running job with
// a target is Ahead (G), Satisfied (S) or Behind (B) of it, from its measured step rate against the
// rate it needs. DQoES measures seconds per batch and calls q = o − p > 0 "better"; a rate target
// flips the sign, so here q = measured − required and q > 0 is ahead. A deadline is a required rate
// too: the steps still to go over the time still left, recomputed every pass from the progress made.
//
// Pure: the operator (status, events, metrics), the `ours` policy (who gives and who receives
// workers) and the simulator (|S| figures, for every policy alike) all read jobs through this.

import type { JobState } from '../types.ts';

/** DQoES's G, S and B; Unknown while the job's rate has not been measured with its present workers. */
export type QoeClass = 'Ahead' | 'Satisfied' | 'Behind' | 'Unknown';

export interface QoeReading {
  readonly class: QoeClass;
  /** Steps per second the target asks for now; undefined once a deadline job has done all its steps. */
  readonly required: number | undefined;
  /** Measured steps per second with the job's present workers; undefined while unknown. */
  readonly measured: number | undefined;
  /** (measured − required) / required: positive = ahead. Undefined while unknown. */
  readonly gap: number | undefined;
  /** Why the target cannot be met (deadline passed; too slow even at maximum workers); absent while it may be. */
  readonly unreachable?: string;
  /** Why, as a machine-readable reason: `DeadlinePassed` or `TooSlowAtMaxWorkers`. */
  readonly unreachableReason?: 'DeadlinePassed' | 'TooSlowAtMaxWorkers';
}

/** Live workers of a running job (what a rate is measured with). */
function workerCount(job: JobState): number {
  const type = job.spec.workers?.type;
  return type === undefined ? 0 : job.replicas.filter((r) => r.type === type && r.node !== undefined).length;
}

const rate = (x: number): string => `${Number(x.toPrecision(3))} steps/s`;

/**
 * The job's standing against its target at `now`; undefined for jobs without a target or not
 * running. Pure: the same job and time always read the same.
 */
export function readQoe(job: JobState, now: number): QoeReading | undefined {
  const target = job.spec.qoe;
  if (target === undefined || job.phase !== 'running') return undefined;
  const measuredRate = job.stepRate;
  const workers = workerCount(job);
  const current = measuredRate !== undefined && measuredRate.workers === workers && workers > 0 ? measuredRate : undefined;

  let required: number | undefined;
  let unreachable: string | undefined;
  if (target.stepsPerSecond !== undefined) {
    required = target.stepsPerSecond;
  } else if (target.deadline !== undefined) {
    const left = target.deadline.totalSteps - (measuredRate?.step ?? 0);
    const secondsLeft = (target.deadline.at - now) / 1000;
    if (left <= 0) return { class: 'Satisfied', required: undefined, measured: current?.stepsPerSecond, gap: undefined };
    if (secondsLeft <= 0) {
      // Past the deadline with steps to go: missed, and no number of workers changes that.
      return {
        class: 'Behind',
        required: undefined,
        measured: current?.stepsPerSecond,
        gap: undefined,
        unreachable: `the deadline passed with ${Math.ceil(left)} of ${target.deadline.totalSteps} steps to go`,
        unreachableReason: 'DeadlinePassed',
      };
    }
    required = left / secondsLeft;
  }
  if (required === undefined || !(required > 0)) return undefined;
  if (current === undefined) return { class: 'Unknown', required, measured: undefined, gap: undefined };

  const measured = current.stepsPerSecond;
  const gap = (measured - required) / required;
  const cls = gap > target.tolerance ? 'Ahead' : gap < -target.tolerance ? 'Behind' : 'Satisfied';
  if (cls === 'Behind') {
    const max = job.spec.workers?.max ?? workers;
    // Linear in workers is the best a synchronous or PS job scales; if even that falls short, no
    // share of the cluster meets the target, and chasing it would only take workers from others.
    const atMax = (measured / workers) * max;
    if (atMax < required * (1 - target.tolerance)) {
      unreachable =
        workers >= max
          ? `at its maximum of ${max} workers it runs ${rate(measured)}, below the ${rate(required)} it needs`
          : `${max} workers at the measured ${rate(measured / workers)} per worker would run at most ${rate(atMax)}, below the ${rate(required)} it needs`;
    }
  }
  return {
    class: cls,
    required,
    measured,
    gap,
    ...(unreachable === undefined ? {} : { unreachable, unreachableReason: 'TooSlowAtMaxWorkers' as const }),
  };
}

/** Workers a Behind job needs to reach its required rate, assuming linear scaling (at least 1). */
export function workersToMeet(reading: QoeReading, workers: number): number {
  if (reading.required === undefined || reading.measured === undefined || workers <= 0) return 1;
  if (!(reading.measured > 0)) return 1;
  return Math.max(1, Math.ceil((workers * reading.required) / reading.measured) - workers);
}

/**
 * Workers an Ahead job can give without falling below its own required rate, assuming linear
 * scaling; never below `min`.
 */
export function workersToSpare(reading: QoeReading, workers: number, min: number): number {
  if (reading.required === undefined || reading.measured === undefined || !(reading.measured > 0)) return 0;
  const keep = Math.max(min, Math.ceil((workers * reading.required) / reading.measured));
  return Math.max(0, workers - keep);
}
