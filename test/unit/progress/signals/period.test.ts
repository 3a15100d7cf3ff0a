import { describe, expect, it } from 'vitest';
import { DEFAULT_PERIOD_CONFIG, jobSetChanged, nextPeriod, type PeriodState } from '../../../../src/progress/signals/index.ts';

const config = { initialMs: 30_000, maxMs: 240_000 };

describe('adaptive evaluation period (FlowCon Algorithm 2)', () => {
  it('defaults to SpeCon’s 30 s, capped at 8×', () => {
    expect(DEFAULT_PERIOD_CONFIG).toEqual(config);
  });

  it('doubles while every job is converged, up to the cap', () => {
    let st: PeriodState | undefined;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      st = nextPeriod(st, { jobs: ['a', 'b'], allConverged: true }, config);
      seen.push(st.periodMs);
    }
    // The first round sees a new job set: initial value; then 60, 120, 240 and the cap holds.
    expect(seen).toEqual([30_000, 60_000, 120_000, 240_000, 240_000, 240_000]);
  });

  it('resets when one job is not converged (or has no information)', () => {
    let st = nextPeriod(undefined, { jobs: ['a'], allConverged: true }, config);
    st = nextPeriod(st, { jobs: ['a'], allConverged: true }, config);
    expect(st.periodMs).toBe(60_000);
    expect(nextPeriod(st, { jobs: ['a'], allConverged: false }, config).periodMs).toBe(30_000);
  });

  it('resets when a job arrives or finishes, including one in and one out (same count)', () => {
    let st = nextPeriod(undefined, { jobs: ['a', 'b'], allConverged: true }, config);
    st = nextPeriod(st, { jobs: ['b', 'a'], allConverged: true }, config);
    expect(st.periodMs).toBe(60_000); // order does not matter
    expect(nextPeriod(st, { jobs: ['a', 'b', 'c'], allConverged: true }, config).periodMs).toBe(30_000);
    expect(nextPeriod(st, { jobs: ['a'], allConverged: true }, config).periodMs).toBe(30_000);
    expect(nextPeriod(st, { jobs: ['a', 'c'], allConverged: true }, config).periodMs).toBe(30_000);
    expect(jobSetChanged(st, ['a', 'c'])).toBe(true);
    expect(jobSetChanged(st, ['b', 'a', 'a'])).toBe(false);
    expect(jobSetChanged(undefined, [])).toBe(true);
  });

  it('does not back off with no jobs at all', () => {
    let st = nextPeriod(undefined, { jobs: [], allConverged: true }, config);
    st = nextPeriod(st, { jobs: [], allConverged: true }, config);
    expect(st.periodMs).toBe(30_000);
  });
});
