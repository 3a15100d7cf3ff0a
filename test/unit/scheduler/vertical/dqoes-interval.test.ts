// DQoES Algorithm 2: the interval doubles after three converging rounds, resets when |S| drops.
import { describe, expect, it } from 'vitest';
import { nextDqoesInterval, type ClassifiedJob, type DqoesIntervalState } from '../../../../src/scheduler/vertical/dqoes/index.ts';

const CONFIG = { initialMs: 10_000, maxMs: 80_000, convergingRounds: 3 };
const ahead = (distance: number): ClassifiedJob => ({ qoeClass: 'Ahead', distance });
const behind = (distance: number): ClassifiedJob => ({ qoeClass: 'Behind', distance });
const satisfied: ClassifiedJob = { qoeClass: 'Satisfied', distance: 0.01 };

/** Runs the rounds and returns each round's interval and runNow. */
function rounds(seq: readonly (readonly ClassifiedJob[])[], start?: DqoesIntervalState): [number, boolean][] {
  let state = start;
  return seq.map((jobs) => {
    const d = nextDqoesInterval(state, jobs, CONFIG);
    state = d.state;
    return [d.state.intervalMs, d.runNow];
  });
}

describe('nextDqoesInterval', () => {
  it('starts at the first interval', () => {
    expect(rounds([[ahead(0.5), behind(0.5)]])).toEqual([[10_000, false]]);
  });

  it('doubles after three rounds in which both G and B came closer to their targets, up to the cap', () => {
    const converging = [0.8, 0.6, 0.4, 0.3, 0.2, 0.15, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02].map((d) => [ahead(d), behind(d)]);
    const intervals = rounds(converging).map(([ms]) => ms);
    expect(intervals).toEqual([10_000, 10_000, 10_000, 20_000, 20_000, 20_000, 40_000, 40_000, 40_000, 80_000, 80_000, 80_000, 80_000]);
  });

  it('keeps the interval while only one side converges (still bouncing)', () => {
    const bouncing = [
      [ahead(0.8), behind(0.8)],
      [ahead(0.6), behind(0.9)],
      [ahead(0.4), behind(1.0)],
      [ahead(0.2), behind(1.1)],
    ];
    expect(rounds(bouncing).map(([ms]) => ms)).toEqual([10_000, 10_000, 10_000, 10_000]);
  });

  it('a round that does not converge restarts the count', () => {
    const seq = [0.8, 0.6, 0.7, 0.5, 0.4, 0.3].map((d) => [ahead(d), behind(d)]);
    expect(rounds(seq).map(([ms]) => ms)).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 20_000]);
  });

  it('fewer jobs in S than the round before: back to the first interval, and a round at once', () => {
    const start: DqoesIntervalState = { intervalMs: 40_000, aheadDistance: 0.1, behindDistance: 0.1, satisfied: 2, convergingFor: 1 };
    expect(rounds([[satisfied, ahead(0.3), behind(0.1)]], start)).toEqual([[10_000, true]]);
    expect(rounds([[satisfied, satisfied, ahead(0.05), behind(0.05)]], start)).toEqual([[40_000, false]]);
  });
});
