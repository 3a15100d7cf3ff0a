import { describe, expect, it } from 'vitest';
import { planProgress, plannedSteps, planSummary } from '../../../../src/progress/signals/index.ts';

describe("a job's declared plan", () => {
  it('is undefined without a plan, or without a position in it', () => {
    expect(planProgress({ step: 100, epoch: 1 })).toBeUndefined();
    expect(planProgress({ epochs: 90 })).toBeUndefined();
    expect(planProgress({ totalSteps: 900 })).toBeUndefined();
  });

  it('from Keras Epoch k/N: planned steps are N × steps per epoch; the ETA from the measured rate', () => {
    const input = { step: 300, epoch: 3, epochs: 90, rate: { stepsPerSecond: 2, step: 300, to: 1_000_000 } };
    expect(plannedSteps(input)).toBe(9000);
    const plan = planProgress(input)!;
    expect(plan).toEqual({ plannedEpochs: 90, plannedSteps: 9000, fraction: 300 / 9000, basis: 'epochs', etaMs: 1_000_000 + 4350_000 });
    expect(planSummary(plan, 300, 3)).toBe('3/90 epochs (3%)');
  });

  it('spec.qoe.totalSteps wins over the log, which wins over epochs; the summary says steps then', () => {
    const plan = planProgress({ step: 1200, epoch: 3, epochs: 90, totalSteps: 5000, specTotalSteps: 10_000 })!;
    expect(plan).toMatchObject({ plannedSteps: 10_000, plannedEpochs: 90, fraction: 0.12, basis: 'steps' });
    expect(plan.etaMs).toBeUndefined();
    expect(planSummary(plan, 1200, 3)).toBe('1200/10000 steps (12%)');
    expect(planProgress({ step: 1200, totalSteps: 5000 })).toMatchObject({ plannedSteps: 5000, fraction: 0.24 });
  });

  it('epochs without steps: the fraction from epochs, no ETA', () => {
    expect(planProgress({ epoch: 45, epochs: 90, rate: { stepsPerSecond: 1, step: 0, to: 0 } })).toEqual({
      plannedEpochs: 90,
      fraction: 0.5,
      basis: 'epochs',
    });
  });

  it('past its plan (a step beyond it) is done, its ETA the time of the rate; a zero rate gives none', () => {
    expect(planProgress({ step: 1500, totalSteps: 1000, rate: { stepsPerSecond: 5, step: 1500, to: 42 } })).toMatchObject({
      fraction: 1,
      etaMs: 42,
    });
    expect(planProgress({ step: 10, totalSteps: 1000, rate: { stepsPerSecond: 0, step: 10, to: 42 } })?.etaMs).toBeUndefined();
  });
});
