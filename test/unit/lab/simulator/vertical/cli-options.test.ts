import { describe, expect, it } from 'vitest';
import { cpuModelFrom, studyFrom, VerticalOptionError } from '../../../../../lab/simulator/vertical/cli-options.ts';

describe("the simulate command's vertical flags", () => {
  it('leaves CPU unmodelled without --vertical-policy', () => {
    expect(cpuModelFrom({ 'cpu-demand': '2' })).toBeUndefined();
    expect(studyFrom({})).toBeUndefined();
  });

  it('reads the model and the study', () => {
    expect(
      cpuModelFrom({
        'vertical-policy': 'flowcon',
        'vertical-interval': '30',
        'cpu-demand': '1.5',
        'cpu-limit': '2',
        'flowcon-alpha': '0.1',
        'flowcon-cpu': 'used',
      }),
    ).toEqual({
      arm: 'flowcon',
      intervalSeconds: 30,
      workerDemandFactor: 1.5,
      psDemandFactor: 1,
      limitFactor: 2,
      flowcon: { alpha: 0.1 },
      flowconCpu: 'used',
    });
    expect(studyFrom({ 'vertical-study': 'dqoes', 'cpu-limit': '2' })).toEqual({
      study: 'dqoes',
      intervalSeconds: 20,
      alpha: 0.05,
      flowconCpu: 'allowed',
      limitFactor: 2,
    });
  });

  it('refuses what it cannot use, naming the flag', () => {
    expect(() => cpuModelFrom({ 'vertical-policy': 'specon' })).toThrow(VerticalOptionError);
    expect(() => cpuModelFrom({ 'vertical-policy': 'none', 'vertical-interval': '0' })).toThrow(/--vertical-interval/);
    expect(() => cpuModelFrom({ 'vertical-policy': 'none', 'cpu-demand': 'x' })).toThrow(/--cpu-demand/);
    expect(() => studyFrom({ 'vertical-study': 'flowcon', 'flowcon-alpha': '1' })).toThrow(/--flowcon-alpha/);
    expect(() => studyFrom({ 'vertical-study': 'philly' })).toThrow(/--vertical-study/);
    expect(() => studyFrom({ 'vertical-study': 'flowcon', 'flowcon-cpu': 'usage' })).toThrow(/--flowcon-cpu/);
  });
});
