import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../../src/operator/config.ts';
import {
  OPERATOR_POLICY_NAMES,
  POLICY_NAMES,
  describePolicies,
  getPolicy,
  isPlacingPolicy,
  isPolicyName,
} from '../../../src/scheduler/index.ts';
import { POLICIES as SIMULATED } from '../../../lab/simulator/cli.ts';
import { SIM_POLICY_NAMES, SIM_POLICY_REGISTRY } from '../../../lab/simulator/policies/registry.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('the policy registry', () => {
  it('lists every policy once, each under its own name', () => {
    expect(new Set(POLICY_NAMES).size).toBe(POLICY_NAMES.length);
    for (const name of POLICY_NAMES) expect(getPolicy(name).name).toBe(name);
    expect(isPolicyName('ours')).toBe(true);
    expect(isPolicyName('toString')).toBe(false);
    expect(() => getPolicy('nope' as never)).toThrow(/expected one of tf-operator, kod2, ours$/);
  });

  it('drives the operator (default first), the simulator and the --help text', () => {
    expect(OPERATOR_POLICY_NAMES).toEqual(['ours', 'kod2', 'tf-operator']);
    expect(OPERATOR_POLICY_NAMES.filter(isPlacingPolicy)).toEqual(['ours', 'kod2']);
    expect(SIMULATED).toEqual(SIM_POLICY_NAMES);
    expect(SIM_POLICY_NAMES.filter((n) => SIM_POLICY_REGISTRY[n].inOperator)).toEqual([...POLICY_NAMES]);
    const policyOption = OPTIONS.find((o) => o.flag === 'policy');
    expect(policyOption?.default).toBe(OPERATOR_POLICY_NAMES[0]);
    for (const name of OPERATOR_POLICY_NAMES) expect(policyOption?.help).toContain(name);
    expect(describePolicies(['kod2'])[0]).toMatch(/^kod2: KOD2/);
  });

  it('is what the docs describe: every policy in the scheduler README, every operator policy in the README', () => {
    const policiesIn = (file: string): string[] => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const section = text.slice(text.indexOf('## Policies'), text.indexOf('## ', text.indexOf('## Policies') + 3));
      return [...section.matchAll(/^- `([a-z0-9-]+)`:/gm)].map((m) => m[1]!);
    };
    expect(policiesIn('src/scheduler/README.md')).toEqual([...POLICY_NAMES]);
    expect(policiesIn('lab/simulator/README.md')).toEqual(SIM_POLICY_NAMES.filter((n) => !SIM_POLICY_REGISTRY[n].inOperator));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const sentence = readme.slice(
      readme.indexOf('`--policy` chooses the scheduler'),
      readme.indexOf('\n\n', readme.indexOf('`--policy` chooses')),
    );
    for (const name of OPERATOR_POLICY_NAMES) expect(sentence).toContain(`\`${name}\``);
    for (const name of SIM_POLICY_NAMES.filter((n) => !SIM_POLICY_REGISTRY[n].inOperator)) expect(sentence).not.toContain(`\`${name}\``);
  });
});
