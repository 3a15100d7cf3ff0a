import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PHASE_CONFIG,
  evaluatePhase,
  progressView,
  type Phase,
  type PhaseState,
  type ProgressSample,
} from '../../../../src/progress/signals/index.ts';
import { seededRandom } from '../../../../lab/workloads/random.ts';
import { T0, readCurve, samples } from './curves.ts';

/** Feeds one sample per round (a round per epoch) and returns the phase after each round. */
function phases(input: readonly ProgressSample[], config = DEFAULT_PHASE_CONFIG): Phase[] {
  let state: PhaseState | undefined;
  return input.map((s) => {
    state = evaluatePhase(state, [s], s.time!, config);
    return state!.phase;
  });
}

/** The phases in the order they were entered, e.g. ['Progressing', 'Slowing', 'Converged']. */
function changes(seq: readonly Phase[]): Phase[] {
  return seq.filter((p, i) => i === 0 || p !== seq[i - 1]);
}

/** First index where the curve is within 1% of its final value (time to accuracy). */
function timeToAccuracy(curve: readonly { metric: number }[]): number {
  const final = curve.at(-1)!.metric;
  return curve.findIndex((p) => Math.abs(p.metric - final) <= 0.01 * Math.abs(final));
}

const CURVES = [
  { file: 'cifar10-validation-128.csv', higherIsBetter: true },
  { file: 'deepspeech2-validation-20.csv', higherIsBetter: false },
];

describe('phases on real validation curves', () => {
  it.each(CURVES)('$file: Progressing → Slowing → Converged in order, converged by the time to accuracy', ({ file, higherIsBetter }) => {
    const curve = readCurve(file);
    const seq = phases(samples(curve, higherIsBetter));
    expect(changes(seq)).toEqual(['Progressing', 'Slowing', 'Converged']);
    expect(seq.indexOf('Converged')).toBeLessThanOrEqual(timeToAccuracy(curve));
    // Not at the very start either: the first fifth of a run is where most of the gain is.
    expect(seq.indexOf('Slowing')).toBeGreaterThan(curve.length / 5);
  });

  it.each(CURVES)('$file: 2% multiplicative noise does not make the phase flap', ({ file, higherIsBetter }) => {
    const curve = readCurve(file);
    for (const seed of [1, 2, 3, 4, 5]) {
      const rnd = seededRandom(seed);
      const seq = phases(samples(curve, higherIsBetter, () => (rnd() - 0.5) * 0.04));
      expect({ seed, changes: changes(seq) }).toEqual({ seed, changes: ['Progressing', 'Slowing', 'Converged'] });
    }
  });

  it('noise without hysteresis or smoothing would flap (the check has teeth)', () => {
    const curve = readCurve('cifar10-validation-128.csv');
    const rnd = seededRandom(1);
    const raw = { ...DEFAULT_PHASE_CONFIG, smoothing: 0, window: 0, exitRounds: 1, exitFactor: 1 };
    expect(
      changes(
        phases(
          samples(curve, true, () => (rnd() - 0.5) * 0.04),
          raw,
        ),
      ).length,
    ).toBeGreaterThan(3);
  });

  it('a learning-rate drop that really re-accelerates training returns the job to Progressing', () => {
    // imagenet's schedule divides the learning rate at epochs 30 and 60: accuracy jumps after each.
    const curve = readCurve('imagenet-validation-200.csv');
    const seq = phases(samples(curve, true));
    const ch = changes(seq);
    expect(ch.slice(0, 3)).toEqual(['Progressing', 'Slowing', 'Converged']);
    expect(ch).toContain('Progressing');
    const back = seq.findIndex((p, i) => i > seq.indexOf('Converged') && p === 'Progressing');
    expect(back).toBeGreaterThanOrEqual(30);
    expect(back).toBeLessThan(36);
  });
});

describe('the phase machine', () => {
  const s = (step: number, value: number, extra: Partial<ProgressSample> = {}): ProgressSample => ({
    source: 'protocol',
    step,
    value,
    name: 'loss',
    higherIsBetter: false,
    time: T0 + step * 1000,
    ...extra,
  });

  it('starts Progressing without a growth, and knows nothing without samples', () => {
    expect(evaluatePhase(undefined, [], T0)).toBeUndefined();
    const st = evaluatePhase(undefined, [s(10, 5)], T0 + 10_000)!;
    expect(progressView(st, T0 + 10_000)).toEqual({
      phase: 'Progressing',
      since: T0 + 10_000,
      metric: 5,
      latest: 5,
      name: 'loss',
      higherIsBetter: false,
      lastUpdate: T0 + 10_000,
      step: 10,
    });
  });

  it('shows the smoothed metric and the last value apart', () => {
    const st = evaluatePhase(undefined, [s(10, 5), s(20, 4)], T0 + 20_000)!;
    expect(progressView(st, T0 + 20_000)).toMatchObject({ metric: 0.7 * 5 + 0.3 * 4, latest: 4 });
  });

  it('does not step on a round without new samples (silence is not convergence)', () => {
    let st = evaluatePhase(undefined, [s(10, 5), s(20, 4)], T0 + 20_000);
    st = evaluatePhase(st, [s(30, 3.9)], T0 + 30_000);
    expect(evaluatePhase(st, [], T0 + 60_000)).toBe(st);
  });

  it('ignores re-read lines (same or older step), and restarts the series on a newer line with an older step', () => {
    let st = evaluatePhase(undefined, [s(10, 5), s(20, 4)], T0 + 20_000)!;
    expect(evaluatePhase(st, [s(10, 5), s(20, 4)], T0 + 30_000)).toBe(st);
    st = evaluatePhase(st, [s(0, 9, { time: T0 + 40_000 })], T0 + 40_000)!;
    expect(st).toMatchObject({ step: 0, ema: 9, first: 9, phase: 'Progressing', since: T0 + 40_000 });
  });

  it('starts over when the metric changes name or direction', () => {
    const st = evaluatePhase(undefined, [s(10, 5), s(20, 4), s(30, 0.9, { name: 'val_accuracy', higherIsBetter: true })], T0 + 30_000)!;
    expect(st).toMatchObject({ name: 'val_accuracy', first: 0.9, step: 30 });
  });

  it('a reached target converges at once', () => {
    let st = evaluatePhase(undefined, [s(10, 5, { target: 1 })], T0);
    st = evaluatePhase(st, [s(20, 1)], T0 + 1);
    expect(st!.phase).toBe('Progressing'); // the EMA (3.8) is not there yet
    for (let i = 3; i < 10; i++) st = evaluatePhase(st, [s(i * 10, 0.5)], T0 + i);
    expect(st).toMatchObject({ phase: 'Converged' });
  });

  it('is stale (no information) after staleAfterMs, or after staleGaps typical gaps if longer', () => {
    const hourly = [0, 1, 2, 3].map((h) => s(h + 1, 5 - h, { time: T0 + h * 3_600_000 }));
    const st = evaluatePhase(undefined, hourly, T0 + 3 * 3_600_000);
    const last = T0 + 3 * 3_600_000;
    expect(progressView(st, last + 2 * 3_600_000)).toBeDefined();
    expect(progressView(st, last + 3 * 3_600_000 + 1)).toBeUndefined();
    const fast = evaluatePhase(undefined, [s(1, 5), s(2, 4)], T0 + 2000);
    expect(progressView(fast, T0 + 2000 + DEFAULT_PHASE_CONFIG.staleAfterMs)).toBeDefined();
    expect(progressView(fast, T0 + 2001 + DEFAULT_PHASE_CONFIG.staleAfterMs)).toBeUndefined();
  });

  it('uses time as progress when samples have no step', () => {
    let st: PhaseState | undefined;
    for (let i = 0; i < 50; i++) {
      const t = T0 + i * 60_000;
      st = evaluatePhase(st, [{ source: 'keras', value: 1 - Math.exp(-i / 5), name: 'accuracy', higherIsBetter: true, time: t }], t);
    }
    expect(st).toMatchObject({ axis: 'time', phase: 'Converged' });
  });

  it('is deterministic and does not mutate its input', () => {
    const curve = samples(readCurve('deepspeech2-validation-20.csv'), false);
    const frozen = Object.freeze(curve.map((c) => Object.freeze({ ...c })));
    expect(phases(frozen)).toEqual(phases(curve));
  });

  it('remembers a bounded number of points', () => {
    let st: PhaseState | undefined;
    for (let i = 1; i <= 20_000; i++) st = evaluatePhase(st, [s(i, 1 / i)], T0 + i * 1000);
    expect(st!.points.length).toBeLessThanOrEqual(64);
  });
});

describe('the growth window with many small rounds', () => {
  it('keeps points spread over the window, so growth is measured over it and not since the start', () => {
    // A curve that improved fast until step 10 000 and not at all after: from step 15 000 on, growth
    // over the last third of progress is exactly 0 — but measured since the start it would stay large.
    let st: PhaseState | undefined;
    for (let i = 1; i <= 30_000; i += 1) {
      const value = i < 10_000 ? 1 - i / 10_000 : 0;
      st = evaluatePhase(st, [{ source: 'protocol', step: i, value, name: 'loss', higherIsBetter: false, time: T0 + i }], T0 + i);
    }
    expect(st!.points.length).toBeGreaterThan(8);
    expect(st!.points.length).toBeLessThanOrEqual(64);
    expect(st!.growth).toBeCloseTo(0, 6);
    expect(st!.phase).toBe('Converged');
  });
});
