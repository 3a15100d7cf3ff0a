// spec.qoe: the operator's own check (the same rules as our CRD's bounds and CEL, for jobs that reach
// it without them) and the target a valid spec resolves to.
import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors } from '../../../src/api/v1/field-error.ts';
import { describeQoeTarget, resolveQoe, validateQoe } from '../../../src/api/v1/qoe.ts';
import type { QoeSpec, TFJob } from '../../../src/api/v1/schema.ts';

const job = (qoe: QoeSpec): TFJob => ({ metadata: { name: 'j' }, spec: { qoe } });
const errors = (qoe: QoeSpec) => {
  const e = validateQoe(job(qoe));
  return e.length === 0 ? '' : aggregateFieldErrors(e);
};

describe('validateQoe', () => {
  it('accepts each kind of target alone', () => {
    expect(errors({ stepsPerSecond: 40 })).toBe('');
    expect(errors({ secondsPerStep: 0.5, tolerance: 0.2, adjustStep: 1 })).toBe('');
    expect(errors({ deadline: '2030-01-01T00:00:00Z', totalSteps: 1000 })).toBe('');
    expect(errors({ deadlineSeconds: 3600, totalSteps: 1000 })).toBe('');
  });

  it('names the field of every bad value', () => {
    expect(errors({ stepsPerSecond: 0 })).toContain('spec.qoe.stepsPerSecond: Invalid value: 0');
    expect(errors({ stepsPerSecond: Number.NaN })).toContain('spec.qoe.stepsPerSecond');
    expect(errors({ stepsPerSecond: 1e9 })).toContain('spec.qoe.stepsPerSecond');
    expect(errors({ secondsPerStep: -1 })).toContain('spec.qoe.secondsPerStep');
    expect(errors({ deadline: 'tomorrow', totalSteps: 5 })).toContain('spec.qoe.deadline: Invalid value: "tomorrow"');
    expect(errors({ deadlineSeconds: 0, totalSteps: 5 })).toContain('spec.qoe.deadlineSeconds');
    expect(errors({ stepsPerSecond: 1, tolerance: 1 })).toContain('spec.qoe.tolerance');
    expect(errors({ stepsPerSecond: 1, tolerance: 0 })).toContain('spec.qoe.tolerance');
    expect(errors({ stepsPerSecond: 1, adjustStep: 1.5 })).toContain('spec.qoe.adjustStep');
  });

  it('wants exactly one target, and total steps exactly with a deadline', () => {
    expect(errors({})).toContain('must set one of stepsPerSecond, secondsPerStep, deadline, deadlineSeconds, or targetMetric');
    expect(errors({ stepsPerSecond: 1, secondsPerStep: 1 })).toContain('must set at most one of');
    expect(errors({ targetMetric: 0.9 })).toBe('');
    expect(errors({ stepsPerSecond: 5, targetMetric: 0.9, onTargetMetric: 'Stop' })).toBe('');
    expect(errors({ stepsPerSecond: 5, onTargetMetric: 'Stop' })).toContain('spec.qoe.onTargetMetric: Forbidden');
    expect(errors({ targetMetric: 0.9, onTargetMetric: 'Halt' })).toContain('spec.qoe.onTargetMetric: Unsupported value');
    expect(errors({ targetMetric: 1e20 })).toContain('spec.qoe.targetMetric');
    expect(errors({ deadlineSeconds: 60 })).toContain('spec.qoe.totalSteps: Required value');
    expect(errors({ stepsPerSecond: 1, totalSteps: 10 })).toContain('spec.qoe.totalSteps: Forbidden');
  });
});

describe('resolveQoe', () => {
  const created = Date.parse('2026-11-25T10:00:00Z');
  it('inverts seconds per step, anchors relative deadlines at creation, fills the defaults', () => {
    expect(resolveQoe({ secondsPerStep: 0.25 }, created)).toEqual({ stepsPerSecond: 4, tolerance: 0.1, adjustStep: 0.1 });
    expect(resolveQoe({ deadlineSeconds: 3600, totalSteps: 100, tolerance: 0.2 }, created)).toEqual({
      deadline: { at: created + 3600_000, totalSteps: 100 },
      tolerance: 0.2,
      adjustStep: 0.1,
    });
    expect(resolveQoe(undefined, created)).toBeUndefined();
    expect(resolveQoe({ targetMetric: 0.9 }, created)).toEqual({
      tolerance: 0.1,
      adjustStep: 0.1,
      metric: { value: 0.9, onReached: 'Shrink' },
    });
  });

  it('describes the target in words', () => {
    const q = { deadlineSeconds: 3600, totalSteps: 100 };
    expect(describeQoeTarget(q, resolveQoe(q, created)!)).toBe('100 steps by 2026-11-25T11:00:00Z');
    expect(describeQoeTarget({ stepsPerSecond: 40 }, resolveQoe({ stepsPerSecond: 40 }, created)!)).toBe('40 steps/s');
    const both = { stepsPerSecond: 40, targetMetric: 0.9, onTargetMetric: 'Stop' };
    expect(describeQoeTarget(both, resolveQoe(both, created)!)).toBe('40 steps/s; metric 0.9, then Stop');
  });
});
