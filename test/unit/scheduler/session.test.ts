// The preemptive policies as sessions of named actions (src/scheduler/session), built from their
// plugin lists (src/scheduler/policies/lists.ts): each policy's actions, that every improvement
// toggle of `ours` changes its pass, and that `ours` with every improvement off is `kod2`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IMPROVEMENTS, NO_IMPROVEMENTS, resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import type { ImprovementToggles } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { KOD2_PASS } from '../../../src/scheduler/policies/kod2.ts';
import { oursPass } from '../../../src/scheduler/policies/ours.ts';
import type { PassPolicy } from '../../../src/scheduler/session/session.ts';
import { snapshotArb } from './helpers/arbitraries.ts';

/** The pass as plain data: functions by name, actions with their options. */
function describePass(pass: PassPolicy): unknown {
  return JSON.parse(
    JSON.stringify({ ...pass, actions: pass.actions.map((a) => ({ name: a.name, options: a.options })) }, (_key, value: unknown) =>
      typeof value === 'function' ? `fn:${value.name}` : value,
    ),
  );
}

const names = (pass: PassPolicy): string[] => pass.actions.map((a) => a.name);

describe('policies as lists of actions', () => {
  it('kod2 is Algorithm 1: admit heads, then scale out (with the queues’ reclaim around them)', () => {
    expect(names(KOD2_PASS)).toEqual(['reclaim-quota', 'admit-heads', 'reclaim-for-growth', 'scale-out']);
  });

  it('ours adds its actions to kod2’s, in pass order', () => {
    expect(names(oursPass(DEFAULT_IMPROVEMENTS))).toEqual([
      'shrink-at-target',
      'reclaim-quota',
      'grow-before-admit',
      'admit-heads',
      'meet-qoe-targets',
      'reclaim-for-growth',
      'scale-out',
    ]);
  });

  it('ours with every improvement off is kod2’s pass', () => {
    expect(describePass(oursPass(NO_IMPROVEMENTS))).toEqual(describePass(KOD2_PASS));
  });

  it('every improvement toggle changes the pass (each is an action, a rule or an action option)', () => {
    const base = describePass(oursPass(DEFAULT_IMPROVEMENTS));
    for (const key of Object.keys(DEFAULT_IMPROVEMENTS) as (keyof ImprovementToggles)[]) {
      const flipped = describePass(oursPass({ ...DEFAULT_IMPROVEMENTS, [key]: !DEFAULT_IMPROVEMENTS[key] }));
      expect(flipped, key).not.toEqual(base);
    }
  });

  it('ours with every improvement off decides as kod2', () => {
    const config = resolveSchedulerConfig({ improvements: NO_IMPROVEMENTS });
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        expect(schedule('ours', snap, config)).toEqual(schedule('kod2', snap, config));
      }),
      { numRuns: 100, seed: 20261127 },
    );
  });
});
