import { describe, expect, it } from 'vitest';
import { pipelineLag } from '../../../../lab/emulator/scenario-run.ts';

describe('pipelineLag', () => {
  it('measures what the real run adds to the model: work done to Succeeded per job, bound to Running per pod', () => {
    const lag = pipelineLag(
      [
        { workDoneAt: 100, finished: 130 },
        { workDoneAt: 200, finished: 210 },
        { workDoneAt: 300 }, // not seen finished: not counted
        { finished: 50 }, // finished before the emulator ended it (e.g. failed): not counted
      ],
      [6, 12, 9],
      500,
    );
    expect(lag.finishMean).toBe(20);
    expect(lag.podStartMean).toBe(9);
    expect(lag.shareOfJct).toBeCloseTo(29 / 500);
  });

  it('has no figures without data, and no share without a mean JCT', () => {
    expect(pipelineLag([], [], null)).toEqual({ finishMean: null, podStartMean: null, shareOfJct: null });
    expect(pipelineLag([{ workDoneAt: 10, finished: 15 }], [], 0).shareOfJct).toBeNull();
  });
});
