// Teams and queues in the simulator: teams assigned from a scenario's rules, and two teams on a
// hand-built cluster where a team that borrowed the idle team's quota gives it back when that team
// returns (same engine and core as every other run).
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/scheduler/index.ts';
import { simulate } from '../../../../lab/simulator/engine.ts';
import { teamFigures } from '../../../../lab/simulator/teams.ts';
import type { ClusterShape, WorkloadJob } from '../../../../lab/workloads/model.ts';
import { loadScenario } from '../../../../lab/workloads/scenario.ts';
import { assignTeams, queueSpecs } from '../../../../lab/workloads/teams.ts';

/** Two nodes of 4 GPUs; a job is a 0-GPU PS and 1-GPU workers. */
const CLUSTER: ClusterShape = { nodeCount: 2, allocatable: { 'nvidia.com/gpu': 4, cpu: 16_000 } };

function job(name: string, submitSeconds: number, team: string, max: number, work: number): WorkloadJob {
  return {
    name,
    submitSeconds,
    ps: { count: 1, requests: { cpu: 1000 } },
    workers: { requests: { 'nvidia.com/gpu': 1, cpu: 1000 }, min: 1, max },
    work,
    workUnit: 'images',
    throughput: { kind: 'kod2-paper', workerImagesPerSecond: 100, remotePenalty: 0, psCapacityImagesPerSecond: 1e9 },
    label: name,
    team,
    queue: team,
  };
}

describe('teams in scenarios', () => {
  it('the first matching rule names each job team, by window and position', () => {
    const jobs = [0, 10, 20, 30, 40].map((t, i) => ({ ...job(`j${i}`, t, 'x', 1, 1), team: undefined, queue: undefined }));
    const teams = assignTeams(
      jobs,
      [
        { name: 'a', fromSeconds: 0, toSeconds: 15, every: [0, 1] },
        { name: 'a', fromSeconds: 15, every: [0, 2] },
        { name: 'b', fromSeconds: 15, every: [1, 2] },
      ],
      [{ name: 'b', nominalQuota: { cpu: '1' }, weight: 1 }],
    );
    expect(teams.map((j) => [j.team, j.queue])).toEqual([
      ['a', undefined],
      ['a', undefined],
      ['a', undefined],
      ['b', 'b'],
      ['a', undefined],
    ]);
  });

  it('the two-team scenarios load, with queues in the core units', () => {
    const s = loadScenario('teams-borrowing');
    expect(new Set(s.jobs.map((j) => j.team))).toEqual(new Set(['team-a', 'team-b']));
    expect(s.jobs.filter((j) => j.submitSeconds < 7200).every((j) => j.team === 'team-a')).toBe(true);
    expect(queueSpecs(s.definition.queues)).toEqual([
      { name: 'team-a', cohort: 'shared', nominalQuota: { 'nvidia.com/gpu': 32, cpu: 512_000 }, weight: 1 },
      { name: 'team-b', cohort: 'shared', nominalQuota: { 'nvidia.com/gpu': 32, cpu: 512_000 }, weight: 1 },
    ]);
  });
});

describe('borrowing and reclaim in a run', () => {
  // a's one job wants all 8 GPUs and arrives first; b's arrives 100 s later and wants 4.
  const jobs = [job('a1', 0, 'a', 8, 8 * 100 * 1000), job('b1', 100, 'b', 4, 4 * 100 * 300)];
  const run = (queues: boolean) =>
    simulate({
      cluster: CLUSTER,
      // Without queues no job names one (a job naming a queue that does not exist waits for it).
      jobs: queues ? jobs : jobs.map(({ queue: _, ...j }) => j),
      schedule: (s) => schedule('ours', s),
      startupSeconds: 0,
      tickSeconds: 10,
      horizonSeconds: 10_000,
      queues: queues
        ? [
            { name: 'a', cohort: 'c', nominalQuota: { 'nvidia.com/gpu': 4 }, weight: 1 },
            { name: 'b', cohort: 'c', nominalQuota: { 'nvidia.com/gpu': 4 }, weight: 1 },
          ]
        : [],
    });

  it('with queues the returning team gets its quota back at once; without, it waits behind the borrower', () => {
    const withQueues = run(true);
    const global = run(false);
    const b = (r: typeof withQueues) => r.jobs.find((j) => j.name === 'b1')!;
    // a borrowed b's 4 GPUs while b was idle; b1 starts in the pass of its arrival, at its maximum.
    expect(b(withQueues).waited).toBe(0);
    expect(b(withQueues).workersMax).toBe(4);
    // In the single global queue a1 (same weight, earlier) ranks above b1, which waits for it to
    // finish (8 workers × 100 images/s: 1,000 s of work).
    expect(b(global).waited!).toBeGreaterThan(800);
    const figures = teamFigures(withQueues, withQueues.capacity)!;
    expect(figures.resource).toBe('nvidia.com/gpu');
    expect(figures.teams.map((t) => t.name)).toEqual(['a', 'b']);
    // a held all 8 GPUs for 100 s, then 4 while b1 ran, then 8 again: a's share is above half.
    expect(figures.teams[0]!.share).toBeGreaterThan(0.5);
  });
});
