import { describe, expect, it } from 'vitest';
import { completionTable, qoeTable, runSvg, summariseRun, timeInClasses, type RunRecord } from '../../../bench/lib/vertical-report.ts';

function run(condition: string, repeat: number, completion: Record<string, number | null>, samples: RunRecord['samples'] = []): RunRecord {
  return { condition, repeat, startedAt: '2026-11-29T00:00:00Z', loadAverage: { start: 1, mean: 1.5, end: 2 }, completion, samples };
}

describe('vertical-real report', () => {
  it('summarises a run: makespan and mean completion only when every job finished', () => {
    expect(summariseRun(run('na', 1, { a: 100, b: 200 }))).toEqual({ makespan: 200, meanCompletion: 150, unfinished: 0 });
    expect(summariseRun(run('na', 1, { a: 100, b: null }))).toEqual({ makespan: null, meanCompletion: null, unfinished: 1 });
  });

  it('counts time in each QoE class until the next sample of the same job', () => {
    const samples = [
      { t: 0, job: 'a', qoeClass: 'Behind' },
      { t: 3, job: 'b', qoeClass: 'Ahead' },
      { t: 5, job: 'a', qoeClass: 'Satisfied' },
      { t: 9, job: 'a', qoeClass: 'Satisfied' },
      { t: 10, job: 'b' },
    ];
    expect(timeInClasses(samples)).toEqual({ a: { Behind: 5, Satisfied: 4 }, b: { Ahead: 7 } });
  });

  it('tabulates completion per job with the spread over repetitions and the change against the first condition', () => {
    const runs = [run('na', 1, { a: 100, b: 200 }), run('na', 2, { a: 120, b: 220 }), run('flowcon', 1, { a: 80, b: 220 })];
    const table = completionTable(runs, ['na', 'flowcon']);
    expect(table).toContain('| a | 110 (100–120) | 80 −27.3 % |');
    expect(table).toContain('| b | 210 (200–220) | 220 +4.8 % |');
    expect(table).toContain('| makespan | 210 (200–220) | 220 +4.8 % |');
    expect(table).toContain('| mean completion | 160 (150–170) | 150 −6.3 % |');
    expect(table).toContain('repetitions (na 2, flowcon 1)');
  });

  it('shows an unfinished job as a dash, not as a time', () => {
    const table = completionTable([run('na', 1, { a: null, b: 50 })], ['na']);
    expect(table).toContain('| a | — |');
    expect(table).toContain('| makespan | — |');
  });

  it('sums G/S/B over jobs and counts the jobs mostly in S', () => {
    const samples = [
      { t: 0, job: 'a', qoeClass: 'Satisfied' },
      { t: 10, job: 'a', qoeClass: 'Behind' },
      { t: 12, job: 'a' },
      { t: 0, job: 'b', qoeClass: 'Ahead' },
      { t: 8, job: 'b' },
    ];
    const table = qoeTable([run('dqoes', 1, { a: 12, b: 8 }, samples)], ['dqoes']);
    expect(table).toContain('| dqoes | 8 | 10 | 2 | 50 % | 1 |');
  });

  it('draws three stacked panels, one polyline per job in each', () => {
    const samples = [
      { t: 0, job: 'a', cpuLimitMillis: 2000, stepsPerSecond: 10, metric: 0.5 },
      { t: 3, job: 'a', cpuLimitMillis: 500, stepsPerSecond: 4, metric: 0.9 },
      { t: 0, job: 'b', cpuLimitMillis: 2000 },
      { t: 3, job: 'b', cpuLimitMillis: 1500 },
    ];
    const svg = runSvg(run('flowcon', 1, { a: 3, b: 3 }, samples), 'val_accuracy');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="820" height="1320"')).toBe(true);
    expect(svg.match(/<svg /g)).toHaveLength(4);
    // CPU limit: a and b; step rate and metric: a only (b has no points there, so no polyline).
    expect(svg.match(/<polyline/g)).toHaveLength(4);
    expect(svg).toContain('flowcon (repeat 1, load 1.5): val_accuracy');
  });
});
