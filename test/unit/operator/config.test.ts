import { describe, expect, it } from 'vitest';
import { elasticOptions, loadConfig } from '../../../src/operator/config.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  return loadConfig({ argv, env }).config;
}

describe('operator configuration: elastic sizing', () => {
  it('bounds elastic jobs at 512 workers (MAX_ELASTIC_WORKERS) unless told otherwise', () => {
    expect(elasticOptions(config([]))).toEqual({ workerLimit: 512 });
    expect(elasticOptions(config(['--max-workers-per-job', '64']))).toEqual({ workerLimit: 64 });
    expect(elasticOptions(config([], { TFJOB_MAX_WORKERS_PER_JOB: '8' }))).toEqual({ workerLimit: 8 });
  });

  it('passes the default bounds on only when some are set', () => {
    expect(elasticOptions(config(['--default-min-workers', '1']))).toEqual({ defaultElastic: { min: 1, max: 0 }, workerLimit: 512 });
  });

  it('rejects a limit below one worker or above 512, naming the flag', () => {
    expect(() => config(['--max-workers-per-job', '0'])).toThrow(/--max-workers-per-job/);
    expect(() => config(['--max-workers-per-job', '1.5'])).toThrow(/--max-workers-per-job/);
    expect(() => config(['--max-workers-per-job', '513'])).toThrow(/--max-workers-per-job/);
  });
});

describe('operator configuration: training progress', () => {
  it('reads progress every 30 s unless told otherwise; 0 turns it off', () => {
    expect(config([]).progressPeriod).toBe(30_000);
    expect(config(['--progress-period', '0']).progressPeriod).toBe(0);
    expect(config([], { TFJOB_PROGRESS_PERIOD: '1m' }).progressPeriod).toBe(60_000);
  });
});

describe('operator configuration: vertical policy', () => {
  it('is off by default; flowcon needs progress read from every job; one in-place resizer at a time', () => {
    expect(config([]).verticalPolicy).toBe('none');
    expect(config(['--vertical-policy', 'flowcon']).verticalInterval).toBe(20_000);
    expect(config(['--vertical-policy', 'dqoes', '--progress-period', '0']).verticalPolicy).toBe('dqoes');
    expect(() => config(['--vertical-policy', 'flowcon', '--progress-period', '0'])).toThrow(
      /--vertical-policy: flowcon and specon read every running job's progress/,
    );
    expect(() => config(['--vertical-policy', 'flowcon', '--resize-converged-cpu', '0.5'])).toThrow(
      /--vertical-policy: sets CPU limits in place/,
    );
    expect(() => config(['--vertical-policy', 'vpa'])).toThrow(/--vertical-policy/);
    expect(() => config(['--flowcon-alpha', '0'])).toThrow(/--flowcon-alpha/);
    expect(() => config(['--flowcon-cpu', 'usage'])).toThrow(/--flowcon-cpu/);
    expect(config(['--vertical-policy', 'flowcon', '--progress-period', '5s', '--flowcon-cpu', 'used']).flowconCpu).toBe('used');
    expect(config([]).flowconCpu).toBe('allowed');
  });
});

describe('operator configuration: refused nodes', () => {
  it('avoids a node that refused a pod for 10 minutes unless told otherwise', () => {
    expect(config([]).refusedNodeAvoidFor).toBe(600_000);
    expect(config(['--refused-node-avoid-for', '90s']).refusedNodeAvoidFor).toBe(90_000);
    expect(config(['--refused-node-avoid-for=2m']).refusedNodeAvoidFor).toBe(120_000);
    expect(config([], { TFJOB_REFUSED_NODE_AVOID_FOR: '30s' }).refusedNodeAvoidFor).toBe(30_000);
  });

  it('rejects no avoidance at all and what is not a duration, naming the flag', () => {
    expect(() => config(['--refused-node-avoid-for', '0'])).toThrow(/--refused-node-avoid-for/);
    expect(() => config(['--refused-node-avoid-for', 'soon'])).toThrow(/refused-node-avoid-for: "soon" is not a duration/);
  });
});
