// `ours`' growth-efficiency proportional scale-out (growByEfficiency, FlowCon Algorithm 1 at worker
// granularity) on the paper's testbed with hand-computed expectations: six 1-cpu worker slots are
// left (2 per node), and two running jobs of the same shape want all of them.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { JobProgress, JobState } from '../../../src/scheduler/types.ts';
import { cpu, paperTestbed, running, snapshot } from './helpers/builders.ts';

const WORKER = { cpu: cpu(1) };
const PS = { cpu: cpu(1) };
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));
const progressing = (growth: number): JobProgress => ({ phase: 'Progressing', since: 0, growth });

/** X (on node-1) and Y (on node-2, submitted earlier, so ranked first): PS + 1 worker each, max 20. */
function twoGrowing(x: Partial<JobState>, y: Partial<JobState>): ReturnType<typeof snapshot> {
  return snapshot(
    paperTestbed(),
    [
      {
        ...running('X', ['PS:0@node-1', 'Worker:0@node-1'], { ps: PS, worker: WORKER, min: 1, max: 20, submittedAt: 1000, createdAt: 0 }),
        ...x,
      },
      {
        ...running('Y', ['PS:0@node-2', 'Worker:0@node-2'], { ps: PS, worker: WORKER, min: 1, max: 20, submittedAt: 0, createdAt: 0 }),
        ...y,
      },
    ],
    { now: 3_600_000, otherPods: busy({ 'node-1': 6, 'node-2': 6, 'node-3': 8 }) },
  );
}

const grown = (plan: ReturnType<typeof schedule>): Record<string, number> =>
  Object.fromEntries(plan.scaleOut.map((s) => [s.job, s.add.length]));
const withToggle = resolveSchedulerConfig({ improvements: { growByEfficiency: true } });

describe('growth-efficiency proportional scale-out (ours, growByEfficiency)', () => {
  it('is off by default: idle room goes by rank (Y, the earlier job, takes all six slots)', () => {
    const plan = schedule('ours', twoGrowing({ progress: progressing(0.6) }, { progress: progressing(0.2) }), resolveSchedulerConfig());
    expect(grown(plan)).toEqual({ Y: 6 });
  });

  it('hands the slots out in proportion to growth per resource held (highest averages: X 5, Y 1)', () => {
    // Quotients 0.6, 0.3, 0.2 (X, ties go by key), 0.2 (Y), 0.15, 0.12 (X): X gets 5, Y 1.
    const plan = schedule('ours', twoGrowing({ progress: progressing(0.6) }, { progress: progressing(0.2) }), withToggle);
    expect(grown(plan)).toEqual({ X: 5, Y: 1 });
  });

  it('counts the resources a job already holds: with twice the workers, the same growth earns half', () => {
    // X holds 2 workers (E = 0.6 / 2), Y 1 worker (E = 0.3 / 1): equal efficiency, slots alternate
    // (X first on the key tie). 5 slots are left: X 3, Y 2.
    const snap = twoGrowing({ progress: progressing(0.6) }, { progress: progressing(0.3) });
    const jobs = snap.jobs.map((j) =>
      j.spec.key === 'X' ? { ...j, replicas: [...j.replicas, { type: 'Worker', index: 1, node: 'node-1', createdAt: 0 }] } : j,
    );
    expect(grown(schedule('ours', { ...snap, jobs }, withToggle))).toEqual({ X: 3, Y: 2 });
  });

  it('never lets a job pass one that ranks above it: a higher class, or a band that is not demoted', () => {
    const three = (jobs: { key: string; node: string; priority: number; submittedAt: number } & Partial<JobState>) => jobs;
    const snap = (...js: ReturnType<typeof three>[]) =>
      snapshot(
        paperTestbed(),
        js.map(({ key, node, priority, submittedAt, ...state }) => ({
          ...running(key, [`PS:0@${node}`, `Worker:0@${node}`], {
            ps: PS,
            worker: WORKER,
            min: 1,
            max: 20,
            priority,
            submittedAt,
            createdAt: 0,
          }),
          ...state,
        })),
        { now: 10 * 3_600_000, otherPods: busy({ 'node-1': 6, 'node-2': 6, 'node-3': 6 }) },
      );
    // H (priority 10, no signal) ranks above L (priority 0, learning fast): H keeps the room.
    const classes = snap(
      three({ key: 'H', node: 'node-1', priority: 10, submittedAt: 1000 }),
      three({ key: 'L', node: 'node-2', priority: 0, submittedAt: 0, progress: progressing(0.9) }),
    );
    expect(grown(schedule('ours', classes, withToggle))).toEqual({ H: 8 }); // node-3 hosts no job here: 4 cpu free
    // X and Z (priority 10, demoted by attained service) outrank Y (priority 0): the room is shared
    // between X and Z by growth (Z: 0.9 against 0.1, all six), not handed to X by rank as without it.
    const demoted = { attainedWorkerSeconds: 3 * 3600 };
    const bands = snap(
      three({ key: 'X', node: 'node-1', priority: 10, submittedAt: 0, ...demoted, progress: progressing(0.1) }),
      three({ key: 'Y', node: 'node-2', priority: 0, submittedAt: 0, progress: progressing(0.9) }),
      three({ key: 'Z', node: 'node-3', priority: 10, submittedAt: 1000, ...demoted, progress: progressing(0.9) }),
    );
    expect(grown(schedule('ours', bands, resolveSchedulerConfig()))).toEqual({ X: 6 });
    expect(grown(schedule('ours', bands, withToggle))).toEqual({ Z: 6 });
  });

  it('leaves out jobs that are not Progressing or have no signal: they grow by rank after the others', () => {
    const slowing = { progress: { phase: 'Slowing' as const, since: 0, growth: 0.9 } };
    expect(grown(schedule('ours', twoGrowing({ progress: progressing(0.1) }, slowing), withToggle))).toEqual({ X: 6 });
    expect(grown(schedule('ours', twoGrowing({ progress: progressing(0.1) }, {}), withToggle))).toEqual({ X: 6 });
    expect(grown(schedule('ours', twoGrowing({}, {}), withToggle))).toEqual({ Y: 6 });
  });
});
