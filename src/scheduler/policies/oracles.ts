// Clairvoyant baselines (oracles: they read each job's remaining work, which no real operator
// knows; the simulator shows it only to policies registered as oracles). Fixed-size gangs at maximum
// size, preemptive (ordered-gang.ts):
//   srtf-oracle: shortest remaining time first (seconds left at maximum size);
//   srsf-oracle: shortest remaining service first (seconds left × workers at maximum size), the
//                "clairvoyant SRSF" the Pollux OSDI'21 artifact compares against.
// A lower bound for fixed-size scheduling of the same jobs, not something the operator can run.

import type { CompiledJob } from '../job-model.ts';
import { classesFirst, orderedGangPass } from './ordered-gang.ts';
import type { SchedulingPolicy } from './policy.ts';

function remainingSeconds(job: CompiledJob): number {
  const r = job.state.oracleRemainingSeconds;
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
