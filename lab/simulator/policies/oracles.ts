// Clairvoyant baselines (oracles: they read each job's remaining work, which no real operator
// knows; the simulator shows it only to policies registered as oracles, as `OracleJobState`). Fixed-size gangs at maximum
// size, preemptive (ordered-gang.ts):
//   srtf-oracle: shortest remaining time first (seconds left at maximum size);
//   srsf-oracle: shortest remaining service first (seconds left × workers at maximum size), the
//                "clairvoyant SRSF" the Pollux OSDI'21 artifact compares against.
// A lower bound for fixed-size scheduling of the same jobs, not something the operator can run.

import type { CompiledJob } from '../../../src/scheduler/model/job-model.ts';
import type { ClusterSnapshot, JobState } from '../../../src/scheduler/types.ts';
import { classesFirst, orderedGangPass } from './ordered-gang.ts';
import type { SchedulingPolicy } from '../../../src/scheduler/policies/policy.ts';

/**
 * A job's state as the simulator shows it to oracles: with the seconds of work left at its maximum
 * workers on the fewest nodes, which no real operator knows.
 */
export interface OracleJobState extends JobState {
  readonly oracleRemainingSeconds?: number;
}

/** A snapshot whose jobs may carry oracle knowledge (the simulator's). */
export interface OracleSnapshot extends ClusterSnapshot {
  readonly jobs: readonly OracleJobState[];
}

function hasRemaining(state: JobState): state is OracleJobState {
  return 'oracleRemainingSeconds' in state;
}

function remainingSeconds(job: CompiledJob): number {
  const r = hasRemaining(job.state) ? job.state.oracleRemainingSeconds : undefined;
  if (r === undefined) throw new Error(`${job.key}: an oracle policy needs the remaining work the simulator shows oracles`);
  return r;
}

function maxWorkers(job: CompiledJob): number {
  return Math.max(1, job.workers?.max ?? 0);
}

const byRemainingTime = classesFirst((a, b) => remainingSeconds(a) - remainingSeconds(b));
const byRemainingService = classesFirst((a, b) => remainingSeconds(a) * maxWorkers(a) - remainingSeconds(b) * maxWorkers(b));

export const srtfOraclePolicy: SchedulingPolicy = {
  name: 'srtf-oracle',
  description: "Oracle: shortest remaining time first, fixed-size gangs at maximum size, preemptive (knows each job's remaining work)",
  schedule: (snapshot, config) => orderedGangPass(snapshot, config, byRemainingTime, 'shortest-remaining-time'),
};

export const srsfOraclePolicy: SchedulingPolicy = {
  name: 'srsf-oracle',
  description:
    "Oracle: shortest remaining service (time × workers) first, fixed-size gangs at maximum size, preemptive (knows each job's remaining work)",
  schedule: (snapshot, config) => orderedGangPass(snapshot, config, byRemainingService, 'shortest-remaining-service'),
};
