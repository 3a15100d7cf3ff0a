// `rankByDeclaredPlan` (declared-plan.ts): the remaining-service estimate from a job's own plan, its
// band and order, and what it changes in a pass (the attained-service testbed: A and B run, W waits;
// without plans W takes workers of A once A has held more than 2 worker-hours, else of B).
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { compareRemaining, declaredRemainingService, planRank } from '../../../src/scheduler/declared-plan.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { buildPassModel } from '../../../src/scheduler/job-model.ts';
import type { JobState } from '../../../src/scheduler/types.ts';
import { cpu, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const HOUR = 3600;
const PS = { cpu: cpu(1) };
const progress = (planDone?: number): JobState['progress'] => ({
  phase: 'Progressing',
  since: 0,
  ...(planDone === undefined ? {} : { planDone }),
});
const job = (attainedWorkerSeconds: number, planDone?: number): JobState => ({
  ...waiting('X', { ps: PS, worker: { cpu: cpu(2) } }),
  attainedWorkerSeconds,
  progress: progress(planDone),
});

describe('declared remaining service', () => {
  it('is attained × (1 − f) / f once 5 % of the plan is done; 0 past the plan; unknown otherwise', () => {
    expect(declaredRemainingService(job(HOUR, 0.25))).toBe(3 * HOUR);
    expect(declaredRemainingService(job(HOUR, 1))).toBe(0);
    expect(declaredRemainingService(job(HOUR, 0.04))).toBeUndefined();
    expect(declaredRemainingService(job(0, 0.5))).toBeUndefined();
    expect(declaredRemainingService(job(HOUR))).toBeUndefined();
  });

  it('puts a job with little left in the first band (by weight), one with much left in the demoted one (by remaining); a starving job first of its band', () => {
    expect(planRank(job(3 * HOUR, 0.9), 1, false, 2 * HOUR)).toEqual({ served: 0 });
    expect(planRank(job(HOUR, 0.1), 0, false, 2 * HOUR)).toEqual({ served: 1, remaining: 9 * HOUR });
    expect(planRank(job(HOUR, 0.1), 0, true, 2 * HOUR)).toEqual({ served: 0, remaining: Number.NEGATIVE_INFINITY });
    expect(planRank(job(HOUR), 1, false, 2 * HOUR)).toEqual({ served: 1 });
  });

  it('with planPromotesOnly only promotes: much left keeps the attained band and no key; little left still ranks first band', () => {
    expect(planRank(job(3 * HOUR, 0.9), 1, false, 2 * HOUR, true)).toEqual({ served: 0 });
    expect(planRank(job(HOUR, 0.1), 0, false, 2 * HOUR, true)).toEqual({ served: 0 });
    expect(planRank(job(3 * HOUR, 0.1), 1, false, 2 * HOUR, true)).toEqual({ served: 1 });
    expect(planRank(job(HOUR, 0.1), 0, true, 2 * HOUR, true)).toEqual({ served: 0, remaining: Number.NEGATIVE_INFINITY });
  });

  it('with planPromotedFirst a promoted job keeps its key, so it ranks before the young jobs of the first band', () => {
    expect(planRank(job(3 * HOUR, 0.9), 1, false, 2 * HOUR, true, true)).toEqual({ served: 0, remaining: (3 * HOUR * (1 - 0.9)) / 0.9 });
    expect(planRank(job(3 * HOUR, 0.1), 1, false, 2 * HOUR, true, true)).toEqual({ served: 1 });
    const heavy = (key: string, submittedAt: number): JobState => ({
      ...waiting(key, { ps: PS, worker: { cpu: cpu(4) }, min: 2, max: 2, submittedAt }),
      attainedWorkerSeconds: 3 * HOUR,
      progress: progress(0.9),
    });
    const light = waiting('L', { ps: PS, worker: { cpu: cpu(1) }, min: 1, max: 1, submittedAt: 0 });
    const order = (first: boolean) =>
      buildPassModel(snapshot(paperTestbed(), [heavy('H', 0), light], { now: 1000 }), resolveSchedulerConfig({}), {
        byAttainedService: true,
        byPhase: true,
        byDeclaredPlan: true,
        planPromotesOnly: true,
        planPromotedFirst: first,
      }).waiting.map((j) => j.key);
    expect(order(false)).toEqual(['L', 'H']);
    expect(order(true)).toEqual(['H', 'L']);
  });

  it('orders known before unknown, less first', () => {
    expect([undefined, 5, 1, undefined, 3, -Infinity].sort(compareRemaining)).toEqual([-Infinity, 1, 3, 5, undefined, undefined]);
    expect(compareRemaining(undefined, undefined)).toBe(0);
  });
});

describe('rankByDeclaredPlan in a pass (ours)', () => {
  function pass(a: Partial<JobState>, b: Partial<JobState>, on: boolean, promotesOnly = false) {
    const snap = snapshot(
      paperTestbed(),
      [
        {
          ...running('A', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1'], {
            ps: PS,
            worker: { cpu: cpu(2) },
            submittedAt: 0,
            createdAt: 0,
          }),
          ...a,
        },
        {
          ...running('B', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-2'], {
            ps: PS,
            worker: { cpu: cpu(3) },
            submittedAt: 0,
            createdAt: 0,
          }),
          ...b,
        },
        waiting('W', { ps: PS, worker: { cpu: cpu(2) }, submittedAt: 1000 }),
      ],
      { now: 4 * HOUR * 1000, otherPods: [{ key: 'other/x', node: 'node-3', requests: { cpu: cpu(10) } }] },
    );
    return schedule(
      'ours',
      snap,
      resolveSchedulerConfig({ improvements: { rankByDeclaredPlan: on, planPromotesOnly: promotesOnly } }),
    ).scaleIn.map((s) => s.job);
  }

  it('a demoted job nine tenths through its plan keeps its workers: the other is the victim', () => {
    const a = { attainedWorkerSeconds: 3 * HOUR, progress: progress(0.9) };
    expect(pass(a, {}, false)).toEqual(['A']);
    expect(pass(a, {}, true)).toEqual(['B']);
  });

  it('a young job at the start of a long plan is demoted early: it is the victim', () => {
    const a = { attainedWorkerSeconds: HOUR, progress: progress(0.05) };
    expect(pass(a, {}, false)).toEqual(['B']);
    expect(pass(a, {}, true)).toEqual(['A']);
  });

  it('with planPromotesOnly the nearly finished job still keeps its workers, and the young one is not demoted', () => {
    expect(pass({ attainedWorkerSeconds: 3 * HOUR, progress: progress(0.9) }, {}, true, true)).toEqual(['B']);
    expect(pass({ attainedWorkerSeconds: HOUR, progress: progress(0.05) }, {}, true, true)).toEqual(['B']);
  });

  it('without plans nothing changes', () => {
    expect(pass({ attainedWorkerSeconds: 3 * HOUR }, {}, true)).toEqual(pass({ attainedWorkerSeconds: 3 * HOUR }, {}, false));
  });
});
