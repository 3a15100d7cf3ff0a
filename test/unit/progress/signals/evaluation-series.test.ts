// The evaluation series E(t) FlowCon's growth efficiency reads, from every training style the elastic
// contract supports, on logs captured from real TensorFlow runs (test/fixtures/progress-logs, README
// there: versions and commands). The per-step loss lines of a custom loop are the `step=N loss=X` lines
// of the real absl capture, taken alone (a loop that logs only those).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProgressReader } from '../../../../src/progress/follower/reader.ts';
import {
  MAX_EVALUATION_POINTS,
  foldEvaluationSeries,
  latestEvaluation,
  parseProgressLog,
  type EvaluationSeries,
  type ProgressSample,
} from '../../../../src/progress/signals/index.ts';
import { CriLog } from '../follower/cri-log.ts';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../../../fixtures/progress-logs', name), 'utf8');
const READ_AT = Date.UTC(2026, 10, 28, 12);
const seriesOf = (text: string) => foldEvaluationSeries(undefined, parseProgressLog(text).samples, READ_AT);
const brief = (s: EvaluationSeries | undefined) =>
  s && { name: s.name, source: s.source, higherIsBetter: s.higherIsBetter, points: s.points.map((p) => [p.step, p.value]) };

describe('evaluation series per training style, captured', () => {
  it("Estimator's evaluation lines (`Saving dict for global step N: accuracy = …`): the evaluation accuracy", () => {
    expect(brief(seriesOf(fixture('tf215-estimator.txt')))).toEqual({
      name: 'accuracy',
      source: 'estimator',
      higherIsBetter: true,
      points: [
        [50, 0.55],
        [100, 0.54375],
      ],
    });
  });

  it("Estimator's training lines (`loss = …, step = …`) before any evaluation: the training loss", () => {
    const text = fixture('tf215-estimator.txt');
    const beforeEval = text.slice(0, text.indexOf('Saving dict for global step'));
    expect(brief(seriesOf(beforeEval))).toEqual({
      name: 'loss',
      source: 'estimator',
      higherIsBetter: false,
      points: [
        [0, 0.70768833],
        [20, 0.7905515],
        [40, 0.8202665],
      ],
    });
  });

  it("a custom loop's per-step loss lines: the training loss per logged step", () => {
    const perStep = fixture('tf215-absl.txt')
      .split('\n')
      .filter((l) => /\] step=\d+ loss=/.test(l))
      .join('\n');
    expect(brief(seriesOf(perStep))).toEqual({
      name: 'loss',
      source: 'log',
      higherIsBetter: false,
      points: [
        [16, 0.7238],
        [32, 0.6294],
        [48, 0.5515],
        [64, 0.4804],
      ],
    });
  });

  it('a custom loop that also logs validation values: the validation metric (per-step lines then only move the step)', () => {
    expect(brief(seriesOf(fixture('tf215-absl.txt')))?.points.map((p) => p[1])).toEqual([0.6797, 0.7812, 0.8438, 0.875]);
    expect(brief(seriesOf(fixture('tf215-logging.txt')))).toMatchObject({
      name: 'val_accuracy',
      points: [
        [16, 0.6797],
        [32, 0.7812],
        [48, 0.8438],
        [64, 0.875],
      ],
    });
  });

  it.each([
    ['tf215-fit-v2.txt', [0.4375, 0.4375, 0.4609]],
    ['tf221-keras3-v2.txt', [0.4453, 0.4609, 0.5]],
    ['tf215-fit-v1-pipe.txt', [0.5234, 0.5312, 0.5547]],
  ])('Keras epochs (%s): one val_accuracy per epoch, an equal value in the next epoch kept', (file, values) => {
    expect(brief(seriesOf(fixture(file)))).toEqual({
      name: 'val_accuracy',
      source: 'keras',
      higherIsBetter: true,
      points: values.map((v, i) => [16 * (i + 1), v]),
    });
  });

  it('a diverged log gives no point (NaN is no value)', () => {
    expect(seriesOf(fixture('tf215-fit-v2-nan.txt'))).toBeUndefined();
  });
});

describe('foldEvaluationSeries', () => {
  const sample = (name: string, value: number, step: number, time?: number): ProgressSample => ({
    source: 'log',
    name,
    value,
    higherIsBetter: false,
    step,
    ...(time !== undefined ? { time } : {}),
  });

  it('a line read twice is one point; time never runs back; another metric name starts a new series', () => {
    let s = foldEvaluationSeries(undefined, [sample('loss', 1, 10, 1000), sample('loss', 1, 10, 1000)], READ_AT);
    s = foldEvaluationSeries(s, [sample('loss', 0.9, 20, 500)], READ_AT);
    expect(s?.points).toEqual([{ time: 1000, value: 1, step: 10 }]);
    s = foldEvaluationSeries(s, [sample('val_loss', 0.8, 30, 2000)], READ_AT);
    expect(s).toEqual({ name: 'val_loss', higherIsBetter: false, source: 'log', points: [{ time: 2000, value: 0.8, step: 30 }] });
  });

  it('keeps the last MAX_EVALUATION_POINTS points; a value without a time gets the read time', () => {
    const many = Array.from({ length: MAX_EVALUATION_POINTS + 5 }, (_, i) => sample('loss', 1 / (i + 1), i, i));
    const s = foldEvaluationSeries(undefined, many, READ_AT);
    expect(s?.points).toHaveLength(MAX_EVALUATION_POINTS);
    expect(s?.points[0]?.step).toBe(5);
    expect(latestEvaluation(foldEvaluationSeries(s, [sample('loss', 0.01, 99)], READ_AT))).toEqual({
      time: READ_AT,
      value: 0.01,
      step: 99,
    });
  });
});

describe("the reader's series", () => {
  it('carries the log timestamps of the Estimator evaluation lines across reads', async () => {
    const text = fixture('tf215-estimator.txt');
    const cut = text.indexOf('INFO:tensorflow:loss = 0.7369517');
    const log = new CriLog();
    let now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 1 });
    const target = { key: 'ns/est', namespace: 'ns', pod: 'est-chief-0', podUid: 'u', container: 'tensorflow', workers: 1 };
    log.write(text.slice(0, cut), now);
    now += 2_000;
    await reader.round([target]);
    expect(reader.series('ns/est')?.points).toEqual([{ time: Date.UTC(2026, 10, 28, 12, 0, 0), value: 0.55, step: 50 }]);
    const second = now + 30_000;
    log.write(text.slice(cut), second);
    now = second + 2_000;
    await reader.round([target]);
    expect(reader.series('ns/est')?.points.map((p) => [p.time, p.value])).toEqual([
      [Date.UTC(2026, 10, 28, 12, 0, 0), 0.55],
      [second, 0.54375],
    ]);
  });
});
