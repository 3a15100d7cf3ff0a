// status.qoe, events and counts after a pass (QoeBook): the core's classification of each job with a
// target, rewritten only when it says something new, and events only when the known class changes.
import { describe, expect, it } from 'vitest';
import type { TFJob } from '../../../../src/api/v1/schema.ts';
import { QoeBook } from '../../../../src/operator/scheduling/pass/report-qoe.ts';
import type { JobState } from '../../../../src/scheduler/types.ts';

const T0 = Date.UTC(2026, 10, 25, 12);
const raw: TFJob = { metadata: { name: 'a', namespace: 'ns' }, spec: { qoe: { stepsPerSecond: 10 } } };

function job(measured: number | undefined, workers = 2, phase: JobState['phase'] = 'running'): JobState {
  return {
    spec: {
      key: 'ns/a',
      priority: 0,
      submittedAt: 0,
      fixed: [],
      workers: { type: 'Worker', min: 1, max: 4, requests: {}, constraints: {} },
      qoe: { stepsPerSecond: 10, tolerance: 0.1, adjustStep: 0.1 },
    },
    phase,
    replicas: phase === 'running' ? Array.from({ length: workers }, (_, i) => ({ type: 'Worker', index: i, node: 'n1' })) : [],
    ...(measured === undefined ? {} : { stepRate: { stepsPerSecond: measured, step: 1000, workers: 2, from: T0 - 60_000, to: T0 } }),
  };
}

describe('QoeBook', () => {
  it('writes the reading, rewrites only on news, and tells class changes once', () => {
    const book = new QoeBook();
    const raws = () => raw;
    let u = book.update([job(undefined, 2, 'waiting')], raws, T0);
    expect(book.statusOf('ns/a')).toMatchObject({
      class: 'Unknown',
      target: '10 steps/s',
      reachable: true,
      message: 'waiting in the queue: no steps yet',
    });
    expect(u.changed).toEqual(['ns/a']);
    expect(u.events).toEqual([]);

    u = book.update([job(7)], raws, T0 + 1000);
    expect(book.statusOf('ns/a')).toMatchObject({ class: 'Behind', requiredStepsPerSecond: '10', measuredStepsPerSecond: '7' });
    expect(u.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Normal TargetBehind']);
    expect(u.counts).toMatchObject({ Behind: 1, Satisfied: 0 });

    // Same class, a rate within 5%: no rewrite, no event; the time behind is counted.
    u = book.update([job(7.2)], raws, T0 + 11_000);
    expect(u.changed).toEqual([]);
    expect(u.events).toEqual([]);
    expect(u.behindSeconds.get('ns/a')).toBe(10);

    // Workers changed: the rate no longer matches them (Unknown), no event; then met.
    u = book.update([job(7.2, 3)], raws, T0 + 12_000);
    expect(book.classOf('ns/a')).toBe('Unknown');
    expect(u.events).toEqual([]);
    u = book.update([job(10.5)], raws, T0 + 60_000);
    expect(u.events.map((e) => e.reason)).toEqual(['TargetMet']);
    expect(book.statusOf('ns/a')).toMatchObject({ class: 'Satisfied', since: '2026-11-25T12:01:00Z' });

    // Gone from the snapshot (finished, deleted): dropped, and the job is reconciled once more.
    u = book.update([], raws, T0 + 70_000);
    expect(u.changed).toEqual(['ns/a']);
    expect(book.statusOf('ns/a')).toBeUndefined();
  });

  it('warns once when the target turns out unreachable', () => {
    const book = new QoeBook();
    // 2 workers run 3 steps/s: 4 workers would run at most 6, below 90% of 10.
    const u = book.update([job(3)], () => raw, T0);
    expect(u.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Normal TargetBehind', 'Warning TargetUnreachable']);
    expect(book.statusOf('ns/a')).toMatchObject({
      reachable: false,
      message: expect.stringContaining('cannot meet the target') as unknown,
    });
    expect(book.statusOf('ns/a')?.conditions).toEqual([
      {
        type: 'TargetReachable',
        status: 'False',
        reason: 'TooSlowAtMaxWorkers',
        message: expect.stringContaining('4 workers at the measured 1.5 steps/s per worker would run at most 6 steps/s') as unknown,
        lastTransitionTime: '2026-11-25T12:00:00Z',
      },
    ]);
    expect(book.update([job(3.05)], () => raw, T0 + 1000).events).toEqual([]);
    // Reachable again (faster per worker): the condition turns True, with a new transition time.
    book.update([job(9)], () => raw, T0 + 5000);
    expect(book.statusOf('ns/a')?.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'Reachable',
      lastTransitionTime: '2026-11-25T12:00:05Z',
    });
  });
});

describe('QoeBook: a metric target alone', () => {
  it('has no class, says whether the metric reached it, and tells a Shrink once', () => {
    const book = new QoeBook();
    const rawMetric: TFJob = { metadata: { name: 'a', namespace: 'ns' }, spec: { qoe: { targetMetric: 0.9 } } };
    const j = (reached: boolean): JobState => ({
      ...job(undefined),
      spec: { ...job(undefined).spec, qoe: { tolerance: 0.1, adjustStep: 0.1, metric: { value: 0.9, onReached: 'Shrink' } } },
      progress: { phase: 'Progressing', since: T0, ...(reached ? { targetReached: true } : {}) },
    });
    let u = book.update([j(false)], () => rawMetric, T0);
    expect(book.statusOf('ns/a')).toEqual({
      target: 'metric 0.9, then Shrink',
      targetMetricReached: false,
      message: 'training towards the metric target',
    });
    expect(u.counts).toEqual({ Ahead: 0, Satisfied: 0, Behind: 0, Unknown: 0 });
    u = book.update([j(true)], () => rawMetric, T0 + 1000);
    expect(book.statusOf('ns/a')).toMatchObject({ targetMetricReached: true });
    expect(u.events.map((e) => e.reason)).toEqual(['TargetMetricReached']);
    expect(u.changed).toEqual(['ns/a']);
    u = book.update([j(true)], () => rawMetric, T0 + 2000);
    expect(u.events).toEqual([]);
    expect(u.changed).toEqual([]);
  });
});
