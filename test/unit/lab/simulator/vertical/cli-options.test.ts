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

  it('reads the SpeCon study, its defaults and its own flags', () => {
    expect(studyFrom({ 'vertical-study': 'specon' })?.specon).toEqual({ restartSeconds: 30, jobs: 12, gapSeconds: 240 });
    expect(
      studyFrom({ 'vertical-study': 'specon', 'restart-seconds': '0', 'specon-seeds': '5', 'specon-jobs': '8', 'specon-gap': '90' })
        ?.specon,
    ).toEqual({ restartSeconds: 0, seeds: 5, jobs: 8, gapSeconds: 90 });
    expect(() => studyFrom({ 'vertical-study': 'flowcon', 'restart-seconds': '10' })).toThrow(
      /--restart-seconds is for --vertical-study specon only/,
    );
    expect(() => studyFrom({ 'vertical-study': 'specon', 'restart-seconds': '-1' })).toThrow(/--restart-seconds/);
    expect(() => studyFrom({ 'vertical-study': 'specon', 'specon-seeds': '2.5' })).toThrow(/--specon-seeds must be a whole number/);
  });

  it('refuses what it cannot use, naming the flag', () => {
    expect(() => cpuModelFrom({ 'vertical-policy': 'specon' })).toThrow(/--vertical-study specon/);
    expect(() => cpuModelFrom({ 'vertical-policy': 'spec' })).toThrow(VerticalOptionError);
    expect(() => cpuModelFrom({ 'vertical-policy': 'none', 'vertical-interval': '0' })).toThrow(/--vertical-interval/);
    expect(() => cpuModelFrom({ 'vertical-policy': 'none', 'cpu-demand': 'x' })).toThrow(/--cpu-demand/);
    expect(() => studyFrom({ 'vertical-study': 'flowcon', 'flowcon-alpha': '1' })).toThrow(/--flowcon-alpha/);
    expect(() => studyFrom({ 'vertical-study': 'philly' })).toThrow(/--vertical-study/);
    expect(() => studyFrom({ 'vertical-study': 'flowcon', 'flowcon-cpu': 'usage' })).toThrow(/--flowcon-cpu/);
  });
});
