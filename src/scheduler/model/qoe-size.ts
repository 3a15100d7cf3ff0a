// How many workers a job with a performance target needs to meet it, per job (DQoES's aim is the
// number of jobs that meet their targets, §III: "maximize the number of containers that satisfy").
// From what the operator sees only: the target (`spec.qoe`), the job's declared scaling curve
// (`WorkerGroup.scalingCurve`, its rate with 1..n workers), the step rate it measured and the last
// step it reported. Never the job's true duration or remaining work.
//
//   required(now):  stepsPerSecond; or, with a deadline, (totalSteps − last step) ÷ seconds left
//   rate(n):        the declared curve at n workers, scaled by measured ÷ curve at the measured
//                   worker count once a rate was measured (any unit then works; before a
//                   measurement the curve is read as steps/s, the unit of the target); without a
//                   curve, linear in workers from the measured rate; unknown without either
//   size:           the fewest workers in [min, max] with rate(n) ≥ required; undefined when
//                   unknown, or when even max workers fall short (the target is unreachable)

import type { JobState, QoeTarget, StepRate, WorkerGroup } from '../types.ts';

/** Steps per second the target asks for at `now`: 0 once a deadline job did all its steps, undefined when past its deadline or without a rate target. */
export function requiredRate(target: QoeTarget, lastStep: number | undefined, now: number): number | undefined {
  if (target.stepsPerSecond !== undefined) return target.stepsPerSecond;
  if (target.deadline === undefined) return undefined;
  const left = target.deadline.totalSteps - (lastStep ?? 0);
  if (left <= 0) return 0;
  const seconds = (target.deadline.at - now) / 1000;
  return seconds > 0 ? left / seconds : undefined;
}

/** The job's rate with `n` workers, as its declared curve and its measured rate say; undefined when neither says. */
export function predictedRate(workers: WorkerGroup, measured: StepRate | undefined, n: number): number | undefined {
  const curve = workers.scalingCurve;
  const at = (k: number): number => curve![Math.min(k, curve!.length) - 1]!;
  if (curve !== undefined && curve.length > 0 && n >= 1) {
    if (measured === undefined || measured.workers < 1) return at(n);
    const base = at(measured.workers);
    return base > 0 ? (at(n) * measured.stepsPerSecond) / base : undefined;
  }
  if (measured === undefined || measured.workers < 1) return undefined;
  return (measured.stepsPerSecond / measured.workers) * n;
}

/**
 * The fewest workers (within the job's minimum and maximum) that meet its target at `now`;
 * undefined when the job has no rate target or worker group, when nothing says how fast it runs,
 * or when even its maximum falls short.
 */
export function workersForTarget(job: JobState, now: number): number | undefined {
  const target = job.spec.qoe;
  const wg = job.spec.workers;
  if (target === undefined || wg === undefined) return undefined;
  const required = requiredRate(target, job.stepRate?.step, now);
  if (required === undefined) return undefined;
  if (required === 0) return wg.min;
  for (let n = Math.max(1, wg.min); n <= wg.max; n++) {
    const rate = predictedRate(wg, job.stepRate, n);
    if (rate === undefined) return undefined;
    if (rate >= required) return n;
  }
  return undefined;
}
