import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { DEFAULT_SCHEDULER_CONFIG, parseSchedulerConfig, resolveSchedulerConfig } from '../../../src/scheduler/config.ts';

describe('scheduler configuration', () => {
  it('fills every field from the defaults when given nothing', () => {
    expect(parseSchedulerConfig({})).toEqual(DEFAULT_SCHEDULER_CONFIG);
    expect(parseSchedulerConfig(undefined)).toEqual(DEFAULT_SCHEDULER_CONFIG);
    expect(resolveSchedulerConfig()).toEqual(DEFAULT_SCHEDULER_CONFIG);
  });

  it('merges nested partial objects', () => {
    const c = parseSchedulerConfig({ starveLimitMs: 1000, weight: { slope: 3 }, improvements: { cooldown: false } });
    expect(c.starveLimitMs).toBe(1000);
    expect(c.weight).toEqual({ ...DEFAULT_SCHEDULER_CONFIG.weight, slope: 3 });
    expect(c.improvements).toEqual({ ...DEFAULT_SCHEDULER_CONFIG.improvements, cooldown: false });
    expect(resolveSchedulerConfig({ weight: { referenceShare: 0.2 } }).weight.slope).toBe(DEFAULT_SCHEDULER_CONFIG.weight.slope);
  });

  it('rejects unknown keys and invalid values, naming the field', () => {
    expect(() => parseSchedulerConfig({ starveLimit: 5 })).toThrow(ZodError);
    expect(() => parseSchedulerConfig({ improvements: { backfil: true } })).toThrow(ZodError);
    expect(() => parseSchedulerConfig({ starveLimitMs: 0 })).toThrow(/starveLimitMs/);
    expect(() => parseSchedulerConfig({ weight: { slope: -1 } })).toThrow(/slope/);
    expect(() => parseSchedulerConfig({ scaleOutCooldownMs: 'soon' })).toThrow(ZodError);
  });
});
