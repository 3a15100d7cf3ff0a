// Teams and their queues in a scenario (queues with quotas, docs/results/log.md §1d): which
// team submits each job, and the queue with a quota each team's jobs are charged to.

import type { QueueSpec } from '../../src/scheduler/types.ts';
import type { WorkloadJob } from './model.ts';
import { canonicalResources } from './resources.ts';
import type { ScenarioDefinition } from './scenario-schema.ts';

export type TeamsDefinition = NonNullable<ScenarioDefinition['teams']>;
export type QueuesDefinition = NonNullable<ScenarioDefinition['queues']>;

/**
 * Each job's team: the first rule whose window holds its submission and whose `every` picks its
 * position in submission order (ties by name); a job no rule matches has none. With queues, a job
 * of a team that has a queue of its name is charged to it.
 */
export function assignTeams(jobs: readonly WorkloadJob[], teams: TeamsDefinition, queues: QueuesDefinition | undefined): WorkloadJob[] {
  const order = [...jobs].sort((a, b) => a.submitSeconds - b.submitSeconds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const position = new Map(order.map((j, i) => [j.name, i] as const));
  const queueNames = new Set((queues ?? []).map((q) => q.name));
  return jobs.map((job) => {
    const i = position.get(job.name)!;
    const team = teams.find(
      (t) =>
        job.submitSeconds >= t.fromSeconds &&
        (t.toSeconds === undefined || job.submitSeconds < t.toSeconds) &&
        i % t.every[1] === t.every[0],
    );
    if (team === undefined) return job;
    return { ...job, team: team.name, ...(queueNames.has(team.name) ? { queue: team.name } : {}) };
  });
}

/** The scenario's queues in the core's units. */
export function queueSpecs(queues: QueuesDefinition | undefined): QueueSpec[] {
  return (queues ?? []).map((q) => ({
    name: q.name,
    ...(q.cohort === undefined ? {} : { cohort: q.cohort }),
    nominalQuota: canonicalResources(q.nominalQuota),
    ...(q.borrowingLimit === undefined ? {} : { borrowingLimit: canonicalResources(q.borrowingLimit) }),
    ...(q.lendingLimit === undefined ? {} : { lendingLimit: canonicalResources(q.lendingLimit) }),
    weight: q.weight,
  }));
}
