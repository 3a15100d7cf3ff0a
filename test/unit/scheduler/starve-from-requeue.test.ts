// `starveFromRequeue` (starvation.ts, scheduling.md §5.2 "Clock from the last requeue"): a suspended
// job's starvation clock restarts at its suspension, and starving jobs rank among themselves by it.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { buildPassModel, type BandRanking } from '../../../src/scheduler/job-model.ts';
import { isStarving, starvationClock } from '../../../src/scheduler/starvation.ts';
import type { JobState } from '../../../src/scheduler/types.ts';
import { paperTestbed, snapshot, waiting } from './helpers/builders.ts';

const MIN = 60_000;
const NOW = 600 * MIN;
const config = resolveSchedulerConfig({ starveLimitMs: 30 * MIN });
const RANKING: BandRanking = { byAttainedService: true, byPhase: true };

/** Submitted at `submittedAt`, suspended back to the queue at `requeuedAt` (if given). */
const job = (key: string, submittedAt: number, requeuedAt?: number): JobState => ({
  ...waiting(key, { submittedAt }),
  ...(requeuedAt === undefined ? {} : { requeuedAt }),
});

function order(jobs: readonly JobState[], fromRequeue: boolean): { key: string; starving: boolean }[] {
  const model = buildPassModel(snapshot(paperTestbed(), jobs, { now: NOW }), config, { ...RANKING, starveFromRequeue: fromRequeue });
  return model.waiting.map((j) => ({ key: j.key, starving: j.starving }));
}

describe('starvation clock from the last requeue', () => {
  it('starts at the submission, or with the toggle at the last suspension (never before the submission)', () => {
    expect(starvationClock(job('a', 1000, 5000), false)).toBe(1000);
    expect(starvationClock(job('a', 1000, 5000), true)).toBe(5000);
    expect(starvationClock(job('a', 1000), true)).toBe(1000);
    expect(starvationClock(job('a', 9000, 5000), true)).toBe(9000);
    expect(isStarving(job('a', 0).spec, 30 * MIN, config, 1)).toBe(false);
    expect(isStarving(job('a', 0).spec, 30 * MIN + 1, config, 1)).toBe(true);
  });

  it('a job suspended 10 min ago is starving at once from its submission, not from its requeue', () => {
    const old = job('old', 0, NOW - 10 * MIN);
    const fresh = job('fresh', NOW - 40 * MIN);
    expect(order([old, fresh], false)).toEqual([
      { key: 'old', starving: true },
      { key: 'fresh', starving: true },
    ]);
    expect(order([old, fresh], true)).toEqual([
      { key: 'fresh', starving: true },
      { key: 'old', starving: false },
    ]);
  });

  it('starving jobs rank among themselves by their clocks: a job requeued after another was submitted comes after it', () => {
    const old = job('old', 0, NOW - 35 * MIN);
    const fresh = job('fresh', NOW - 40 * MIN);
    expect(order([old, fresh], false).map((j) => j.key)).toEqual(['old', 'fresh']);
    expect(order([old, fresh], true)).toEqual([
      { key: 'fresh', starving: true },
      { key: 'old', starving: true },
    ]);
  });
});
