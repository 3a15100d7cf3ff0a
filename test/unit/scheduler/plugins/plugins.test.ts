// The plugins of the preemptive pass (src/scheduler/plugins/) and the extension points they register
// into (src/scheduler/session/extension-points.ts): every folder is a registered plugin with a
// README, every listed name exists, each plugin alone changes KOD2's pass where it says, actions
// are placed by their anchors in list order.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IMPROVEMENTS } from '../../../../src/scheduler/config.ts';
import { PLUGINS } from '../../../../src/scheduler/plugins/index.ts';
import { KOD2_PASS } from '../../../../src/scheduler/policies/kod2.ts';
import { POLICY_LISTS } from '../../../../src/scheduler/policies/lists.ts';
import { oursList } from '../../../../src/scheduler/policies/ours.ts';
import { buildPass, type Plugin, type PluginUse } from '../../../../src/scheduler/session/extension-points.ts';
import type { Action, PassPolicy } from '../../../../src/scheduler/session/session.ts';

const PLUGIN_DIR = path.resolve(import.meta.dirname, '../../../../src/scheduler/plugins');
const folders = readdirSync(PLUGIN_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

/** The pass as plain data: functions by name, actions with their options. */
function plain(pass: PassPolicy): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify({ ...pass, actions: pass.actions.map((a) => ({ name: a.name, options: a.options })) }, (_key, value: unknown) =>
      typeof value === 'function' ? `fn:${value.name}` : value,
    ),
  ) as Record<string, unknown>;
}

/** The top-level points of the pass where `a` and `b` differ. */
function changedPoints(a: PassPolicy, b: PassPolicy): string[] {
  const pa = plain(a);
  const pb = plain(b);
  return Object.keys(pa).filter((k) => JSON.stringify(pa[k]) !== JSON.stringify(pb[k]));
}

/** Where each plugin, listed alone (with `ours`' arguments), changes KOD2's pass. */
const EXPECTED: Record<string, string[]> = {
  'ps-nodes-first': ['growth'],
  'pack-nodes': ['growth'],
  cooldown: ['cooldown'],
  'scaling-knee': ['growth'],
  'prune-needless-preemption': ['preemption'],
  'usable-nodes-first': ['preemption'],
  backfill: ['actions'],
  'admit-until-blocked': ['actions'],
  'cheapest-first': ['preemption'],
  'grow-before-admit': ['actions'],
  'attained-service': ['ranking'],
  'suspend-demoted': ['preemption', 'actions'],
  'demote-converged': ['ranking', 'growth'],
  'qoe-targets': ['growth', 'actions'],
  'qoe-keep-target-size': ['preemption'],
  'qoe-cap-at-target': ['growth'],
  'qoe-target-as-minimum': ['ranking', 'refineRanking'],
};

const ours: readonly PluginUse[] = POLICY_LISTS.ours;
const listedArgs = (name: string) => ours.find((u) => u.name === name)?.args;

describe('plugins', () => {
  it('every folder under plugins/ is a registered plugin of that name, with an index.ts and a README', () => {
    expect(folders.length).toBeGreaterThan(0);
    expect([...PLUGINS.keys()].sort()).toEqual([...folders].sort());
    for (const f of folders) {
      expect(existsSync(path.join(PLUGIN_DIR, f, 'README.md')), f).toBe(true);
      expect(existsSync(path.join(PLUGIN_DIR, f, 'index.ts')), f).toBe(true);
    }
  });

  it('every plugin a policy lists exists, and `ours` lists every plugin', () => {
    for (const use of [...POLICY_LISTS.kod2, ...POLICY_LISTS.ours]) expect(PLUGINS.has(use.name), use.name).toBe(true);
    expect(POLICY_LISTS.ours.map((u) => u.name).sort()).toEqual([...PLUGINS.keys()].sort());
  });

  it('with the default improvements, `ours` is its whole list, arguments included', () => {
    expect(oursList(DEFAULT_IMPROVEMENTS)).toEqual(ours.map((u) => ({ name: u.name, args: u.args ?? {} })));
  });

  it.each(Object.keys(EXPECTED))('%s alone changes only its extension points of the kod2 pass', (name) => {
    const args = listedArgs(name);
    const alone = buildPass([{ name, ...(args === undefined ? {} : { args }) }], PLUGINS);
    expect(changedPoints(alone, KOD2_PASS).sort()).toEqual([...EXPECTED[name]!].sort());
  });

  it('knows every plugin it expects (the table above is complete)', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...PLUGINS.keys()].sort());
  });

  it('rejects an unknown plugin name, naming the known ones', () => {
    expect(() => buildPass([{ name: 'no-such-rule' }], PLUGINS)).toThrow(/unknown scheduler plugin "no-such-rule"; known: .*cooldown/);
  });

  it('places plugin actions by their anchor, in list order', () => {
    const step = (name: string): Action => ({ name, run: () => undefined });
    const adds = (name: string, where: 'before' | 'after'): Plugin => ({
      name,
      register(points) {
        if (where === 'before') points.addActionBefore('admit-heads', step(name));
        else points.addActionAfter('admit-heads', step(name));
      },
    });
    const plugins = new Map([
      ['b1', adds('b1', 'before')],
      ['b2', adds('b2', 'before')],
      ['a1', adds('a1', 'after')],
      ['a2', adds('a2', 'after')],
    ]);
    const pass = buildPass([{ name: 'a1' }, { name: 'b1' }, { name: 'a2' }, { name: 'b2' }], plugins);
    expect(pass.actions.map((a) => a.name)).toEqual([
      'reclaim-quota',
      'b1',
      'b2',
      'admit-heads',
      'a1',
      'a2',
      'reclaim-for-growth',
      'scale-out',
    ]);
  });
});
