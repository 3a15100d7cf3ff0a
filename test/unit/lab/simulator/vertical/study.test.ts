import { describe, expect, it } from 'vitest';
import { corePass } from '../../../../../lab/simulator/core.ts';
import { simulate, type SimulationOptions } from '../../../../../lab/simulator/engine.ts';
import type { CpuModelOptions } from '../../../../../lab/simulator/vertical/options.ts';
import { runStudy } from '../../../../../lab/simulator/vertical/study.ts';
import { simulatePolicy } from '../../../../../lab/simulator/run.ts';
import { loadScenario } from '../../../../../lab/workloads/scenario.ts';
import { dqoesStudyJobs, flowconStudyJobs, STUDY_CLUSTER } from '../../../../../lab/workloads/vertical-study.ts';

const base: SimulationOptions = {
  cluster: STUDY_CLUSTER,
  jobs: flowconStudyJobs(),
  schedule: corePass('ours'),
  startupSeconds: 10,
  tickSeconds: 10,
  horizonSeconds: 20_000,
};
const cpu = (arm: CpuModelOptions['arm'], workerDemandFactor: number): CpuModelOptions => ({
  arm,
  intervalSeconds: 20,
  workerDemandFactor,
  psDemandFactor: 1,
});
const finished = (r: ReturnType<typeof simulate>) => r.jobs.map((j) => [j.name, j.finished]);

describe('the CPU model in the simulator', () => {
  it('changes nothing when no node is contended', () => {
    // Five 250m workers that use only their request on a 2-core node: every job gets all it wants.
    const without = simulate(base);
    const withModel = simulate({ ...base, cpu: cpu('none', 1) });
    expect(finished(withModel)).toEqual(finished(without));
    expect(withModel.end).toBe(without.end);
  });

  it('shares a contended node fairly: jobs finish as under processor sharing, and no CPU idles', () => {
    // Each worker would use the whole node; alone they take 240..480 s (study jobs), started together.
    const r = simulate({ ...base, cpu: cpu('none', 8) });
    const at = Object.fromEntries(r.jobs.map((j) => [j.name, j.finished]));
    // Processor sharing: the 240-s job finishes after 5 × 240 s; the makespan is the total work.
    expect(at['mlp-fast']).toBeCloseTo(10 + 5 * 240, 6);
    expect(r.end - r.start).toBeCloseTo(10 + 240 + 360 + 300 + 480 + 420, 6);
  });

  it('static equal limits give every job 1/n of the node and leave it idle when jobs finish', () => {
    const r = simulate({ ...base, cpu: cpu('equal', 8) });
    expect(r.cpu?.changes.map((c) => c.toMillis)).toEqual([400, 400, 400, 400, 400]);
    // The longest job runs at 400m throughout: 480 s alone take 5 × 480 s.
    expect(r.end - r.start).toBeCloseTo(10 + 5 * 480, 6);
  });
});

describe('the vertical rules in the simulator', () => {
  it('FlowCon sets limits within [request, node] with its own reasons, and every job finishes', () => {
    const [, , flowcon] = runStudy({ study: 'flowcon', intervalSeconds: 20, alpha: 0.05 }, corePass('ours'));
    expect(flowcon?.arm).toBe('flowcon');
    const changes = flowcon!.result.cpu!.changes;
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) {
      expect(c.reason).toMatch(/^FlowCon: /);
      expect(c.toMillis).toBeGreaterThanOrEqual(250);
      expect(c.toMillis).toBeLessThanOrEqual(2000);
    }
    expect(flowcon!.result.jobs.every((j) => j.finished !== null)).toBe(true);
  });

  it("FlowCon's `used` CPU term: five jobs sharing a node each used a fifth of what they were allowed", () => {
    const firstGain = (flowconCpu: 'allowed' | 'used') => {
      const [, , flowcon] = runStudy({ study: 'flowcon', intervalSeconds: 20, alpha: 0.05, flowconCpu }, corePass('ours'));
      const first = flowcon!.result.cpu!.changes[0]!;
      return { container: first.container, gain: Number(/gain ([\d.]+)\/core/.exec(first.reason)?.[1]) };
    };
    const [allowed, used] = [firstGain('allowed'), firstGain('used')];
    // Same first interval, same job: limits of 2 cores each, but CFS gave each 0.4 core of the node.
    expect(used.container).toBe(allowed.container);
    expect(used.gain / allowed.gain).toBeCloseTo(5, 1);
  });

  it('DQoES takes limit from the job ahead of its target and gives it to the one behind', () => {
    const runs = runStudy({ study: 'dqoes', intervalSeconds: 20, alpha: 0.05, limitFactor: 2 }, corePass('ours'));
    const dqoes = runs.find((r) => r.arm === 'dqoes')!.result.cpu!;
    const first = dqoes.changes.filter((c) => c.t === dqoes.changes[0]!.t);
    expect(first.find((c) => c.container === 'mlp-a-worker-0')?.toMillis).toBeLessThan(500);
    expect(first.find((c) => c.container === 'lstm-c-worker-0')?.toMillis).toBeGreaterThan(500);
    // Targets are classified by the jobs' true rates: with limits moved, the behind job spends less time Behind.
    const behind = (arm: string) => runs.find((r) => r.arm === arm)!.result.cpu!.jobs.find((j) => j.name === 'lstm-c')!.qoeSeconds!.Behind;
    expect(behind('dqoes')).toBeLessThan(behind('none'));
    expect(dqoesStudyJobs().every((j) => j.qoe?.stepsPerSecond !== undefined)).toBe(true);
  });
});

describe('the SpeCon study', () => {
  it('runs none, FlowCon and SpeCon on the same mix of two nodes; only SpeCon moves, and every job finishes', () => {
    const runs = runStudy({ study: 'specon', intervalSeconds: 20, alpha: 0.05 }, corePass('ours'));
    expect(runs.map((r) => r.arm)).toEqual(['none', 'flowcon', 'specon']);
    for (const r of runs) {
      expect(r.result.jobs).toHaveLength(6);
      expect(r.result.jobs.every((j) => j.finished !== null)).toBe(true);
    }
    const moves = (arm: string) => runs.find((r) => r.arm === arm)!.result.cpu!.migrations;
    expect(moves('none')).toEqual([]);
    expect(moves('flowcon')).toEqual([]);
    for (const m of moves('specon')) expect(m.from).not.toBe(m.to);
  });

  it('draws mixes reproducibly from a seed', () => {
    const once = runStudy(
      { study: 'specon', intervalSeconds: 20, alpha: 0.05, specon: { restartSeconds: 30, jobs: 6, gapSeconds: 120 } },
      corePass('ours'),
      3,
    );
    const again = runStudy(
      { study: 'specon', intervalSeconds: 20, alpha: 0.05, specon: { restartSeconds: 30, jobs: 6, gapSeconds: 120 } },
      corePass('ours'),
      3,
    );
    expect(once.map((r) => r.result.jobs)).toEqual(again.map((r) => r.result.jobs));
    expect(once[0]!.result.jobs.map((j) => j.name)).toEqual(['early-0', 'slow-1', 'early-2', 'slow-3', 'early-4', 'slow-5']);
  });
});

describe('the CPU model on a committed scenario', () => {
  it('leaves every job outcome of kod2-paper-b32 unchanged when containers use only their requests', () => {
    const scenario = loadScenario('kod2-paper-b32', 1);
    const pass = corePass('ours');
    const horizon = 20 * 3600;
    const without = simulatePolicy(scenario, 'ours', pass, horizon);
    const withModel = simulatePolicy(scenario, 'ours', pass, horizon, undefined, {
      arm: 'none',
      intervalSeconds: 20,
      workerDemandFactor: 1,
      psDemandFactor: 1,
    });
    expect(withModel.jobs).toEqual(without.jobs);
    expect(withModel.timeline).toEqual(without.timeline);
  });
});
