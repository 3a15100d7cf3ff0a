// SpeCon in the simulator: what the rule is shown (the operator's view: worker 0 and PS stay, a
// synchronous job never moves, nodes by requests and limits), and each move carried out as the
// operator does it: the worker leaves its node, does no work for the restart, then trains on the target.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../../../src/scheduler/types.ts';
import type { Migration } from '../../../../../src/scheduler/vertical/specon/index.ts';
import { corePass } from '../../../../../lab/simulator/core.ts';
import { simulate } from '../../../../../lab/simulator/engine.ts';
import { ClusterState, jobKey } from '../../../../../lab/simulator/state.ts';
import { boundContainers } from '../../../../../lab/simulator/vertical/containers.ts';
import { applyMigration, refusalKind, speconJobs, speconNodes } from '../../../../../lab/simulator/vertical/migration.ts';
import type { CpuModelOptions } from '../../../../../lab/simulator/vertical/options.ts';
import type { ClusterShape } from '../../../../../lab/workloads/model.ts';
import { speconJob } from '../../../../../lab/workloads/specon-study.ts';

/** node-0 of 4 cores, where `ours` (most idle node first) puts both jobs; spare-0 of 2 cores stays empty. */
const CLUSTER: ClusterShape = {
  nodeCount: 1,
  allocatable: { cpu: 4000, memory: 16 * 2 ** 30 },
  extraPools: [{ prefix: 'spare', count: 1, allocatable: { cpu: 2000, memory: 8 * 2 ** 30 } }],
};
/** One job whose accuracy is flat almost at once (FlowCon's Completing) and one still learning. */
const JOBS = [
  speconJob({ name: 'converged', speed: 12, aloneSeconds: 600, submitSeconds: 0 }),
  speconJob({ name: 'learning', speed: 1, aloneSeconds: 600, submitSeconds: 0 }),
];
const cpu = (arm: CpuModelOptions['arm'], restartSeconds = 30, asyncWorkers = true): CpuModelOptions => ({
  arm,
  intervalSeconds: 20,
  workerDemandFactor: 4,
  psDemandFactor: 1,
  asyncWorkers,
  restartSeconds,
});
const run = (options: CpuModelOptions) =>
  simulate({
    cluster: CLUSTER,
    jobs: JOBS,
    schedule: corePass('ours'),
    startupSeconds: 10,
    tickSeconds: 10,
    horizonSeconds: 50_000,
    cpu: options,
  });
const finished = (r: ReturnType<typeof run>, name: string) => r.jobs.find((j) => j.name === name)!.finished!;

/** Both jobs admitted on node-0 (PS and two workers each), bound at t = 0. */
function admittedState(): ClusterState {
  const state = new ClusterState(CLUSTER, JOBS);
  for (const j of state.jobs) j.phase = 'waiting';
  const replicas = [{ type: 'PS', index: 0 }, ...[0, 1].map((index) => ({ type: 'Worker', index }))].map((r) => ({ ...r, node: 'node-0' }));
  const plan: Plan = {
    suspend: [],
    admit: JOBS.map((j) => ({ job: jobKey(j.name), replicas })),
    scaleIn: [],
    scaleOut: [],
    bind: [],
    waiting: [],
    weights: {},
  };
  state.apply(plan, 0);
  return state;
}

const move: Migration = { job: jobKey('converged'), pod: 'converged-worker-1', index: 1, from: 'node-0', to: 'spare-0', reason: 'test' };

describe('SpeCon in the simulator', () => {
  it("moves the converged job's worker to the empty node, and both jobs finish sooner than under FlowCon's limits alone", () => {
    const flowcon = run(cpu('flowcon'));
    const specon = run(cpu('specon'));
    expect(flowcon.cpu?.migrations).toEqual([]);
    expect(specon.cpu?.migrations.map((m) => [m.pod, m.from, m.to])).toEqual([['converged-worker-1', 'node-0', 'spare-0']]);
    expect(specon.cpu?.migrations[0]?.reason).toMatch(/converged is Completing .* sim\/learning \((New|Watching)/);
    // The moved worker uses the empty node's CPU; the one left behind and the learning job share node-0 with one container less.
    expect(finished(specon, 'converged')).toBeLessThan(finished(flowcon, 'converged'));
    expect(finished(specon, 'learning')).toBeLessThan(finished(flowcon, 'learning'));
  });

  it('makes the moved worker pay its restart: the job ends later the longer the restart, by at most the restart', () => {
    const at = (restart: number) => finished(run(cpu('specon', restart)), 'converged');
    const [r0, r30, r200] = [at(0), at(30), at(200)];
    expect(r30).toBeGreaterThan(r0);
    expect(r200).toBeGreaterThan(r30);
    // One of two workers idle for the restart: the job loses less than the restart itself.
    expect(r200 - r0).toBeLessThan(200);
    expect(run(cpu('specon', 200)).cpu?.migrations).toHaveLength(1);
  });

  it('moves nothing of a job whose training waits for every worker', () => {
    const r = run(cpu('specon', 30, false));
    expect(r.cpu?.migrations).toEqual([]);
    expect([...(r.cpu?.migrationRefusals.keys() ?? [])]).toContain('its training style waits for every worker');
  });
});

describe('applyMigration', () => {
  it('re-creates the worker on the target, ready only once the restart has passed', () => {
    const state = admittedState();
    const job = state.jobs.find((j) => j.workload.name === 'converged')!;
    applyMigration(state, move, 100, 10, 45);
    expect([...job.replicas.values()].find((r) => r.type === 'Worker' && r.index === 1)?.node).toBe('spare-0');
    expect(state.readyPlacement(job, 144.9, 10).workers).toEqual(['node-0']);
    expect([...state.readyPlacement(job, 145, 10).workers].sort()).toEqual(['node-0', 'spare-0']);
    expect(state.pods).toMatchObject({ created: 7, deleted: 1 });
  });

  it("moves the worker's requests from the source node to the target", () => {
    const state = admittedState();
    const requested = (node: string) => speconNodes(state, []).find((n) => n.info.name === node)!.requested['cpu'];
    expect([requested('node-0'), requested('spare-0')]).toEqual([1500, undefined]);
    applyMigration(state, move, 100, 10, 30);
    expect([requested('node-0'), requested('spare-0')]).toEqual([1250, 250]);
  });

  it('refuses a move the cluster cannot take', () => {
    const state = admittedState();
    expect(() => {
      applyMigration(state, { ...move, to: 'nowhere' }, 100, 10, 30);
    }).toThrow(/unknown node nowhere/);
  });
});

describe("what SpeCon is shown, as the operator's caches show it", () => {
  const options = cpu('specon');
  const verdict = { job: jobKey('converged'), list: 'Completing' as const, growthEfficiency: 0.001 };

  it('offers only workers above index 0 of a job whose workers add up, with their limits in force', () => {
    const state = admittedState();
    const bound = boundContainers(state, new Map([['converged-worker-1', 600]]), options);
    const jobs = speconJobs(bound, [verdict], options);
    const converged = jobs.find((j) => j.key === jobKey('converged'))!;
    expect(converged.flowcon).toEqual(verdict);
    expect(converged.nodes).toEqual(['node-0']);
    expect(converged.movable.map((r) => [r.pod, r.index, r.cpuLimitMillis])).toEqual([['converged-worker-1', 1, 600]]);
    expect(jobs.find((j) => j.key === jobKey('learning'))?.flowcon).toEqual({ job: jobKey('learning') });
  });

  it('offers nothing of a synchronous job, and says why', () => {
    const sync = cpu('specon', 30, false);
    const jobs = speconJobs(boundContainers(admittedState(), new Map(), sync), [verdict], sync);
    expect(jobs.every((j) => j.movable.length === 0 && j.notMovable === 'its training style waits for every worker')).toBe(true);
  });

  it("counts a node's requests and what its containers' limits allow above them", () => {
    const state = admittedState();
    // Six containers of 250m on node-0; the template limit is the node's 4 cores, one limit set to 600m.
    const bound = boundContainers(state, new Map([['converged-worker-1', 600]]), options);
    const node0 = speconNodes(state, bound).find((n) => n.info.name === 'node-0')!;
    expect(node0.usedCpuMillis).toBe(1500 + 5 * (4000 - 250) + (600 - 250));
    expect(speconNodes(state, bound).find((n) => n.info.name === 'spare-0')?.usedCpuMillis).toBe(0);
  });

  it('tallies refusals by reason, without node, pod or time', () => {
    expect(refusalKind('in its cooldown: moved at 2026-01-01T00:00:00Z (cooldown 600s)')).toBe('in its cooldown');
    expect(refusalKind('no worker on node-0 that survives a move')).toBe('no movable worker on that node');
    expect(refusalKind('no node takes a-worker-1 (b: would be contended there; c: requests do not fit; d: would be contended there)')).toBe(
      'no node takes it: would be contended there, requests do not fit',
    );
  });
});
