import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_LENGTH, PROGRESS_PREFIX, parseProgressLog } from '../../../../src/progress/signals/index.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures/progress');
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');
const line = (o: unknown): string => `${PROGRESS_PREFIX} ${JSON.stringify(o)}`;

describe('structured progress lines', () => {
  it('reads every field of a full line', () => {
    const r = parseProgressLog(
      `${line({ v: 1, step: 1200, epoch: 3, metric: 0.87, name: 'val_accuracy', higherIsBetter: true, loss: 0.4, target: 0.93, time: 1_795_000_000.5 })}\n`,
    );
    expect(r.samples).toEqual([
      {
        source: 'protocol',
        step: 1200,
        epoch: 3,
        value: 0.87,
        name: 'val_accuracy',
        higherIsBetter: true,
        loss: 0.4,
        target: 0.93,
        time: 1_795_000_000_500,
      },
    ]);
    expect(r.rejected).toEqual({});
  });

  it("reads the job's plan (epochs, totalSteps) into the sample and the position", () => {
    const r = parseProgressLog(`${line({ step: 300, epoch: 3, epochs: 90, totalSteps: 9000, loss: 0.5 })}\n`);
    expect(r.samples[0]).toMatchObject({ step: 300, epoch: 3, epochs: 90, totalSteps: 9000 });
    expect(r.position).toMatchObject({ step: 300, epoch: 3, epochs: 90, totalSteps: 9000 });
  });

  it('tracks the loss when no metric is given, lower being better', () => {
    const r = parseProgressLog(line({ step: 5, loss: 2.5 }));
    expect(r.samples).toEqual([{ source: 'protocol', step: 5, value: 2.5, name: 'loss', higherIsBetter: false, loss: 2.5 }]);
  });

  it('finds the prefix after a logging prefix, ignores other lines and unknown keys, handles CRLF', () => {
    const chunk = [
      'starting training',
      `INFO:root:${line({ step: 1, metric: 0.1, higherIsBetter: true, extra: { any: 'thing' } })}\r`,
      'TFJOB_PROGRESSION is not the prefix {"step":1}',
      `  ${line({ step: 2, metric: 0.2, higherIsBetter: true })}`,
    ].join('\n');
    const r = parseProgressLog(chunk);
    expect(r.samples.map((s) => s.step)).toEqual([1, 2]);
    expect(r.samples[0]!.name).toBe('metric');
    expect(r.rejected).toEqual({});
  });

  it('uses the kubelet timestamp when the line has no time, and the line time over it', () => {
    const chunk = [
      `2026-11-24T14:38:36.123456789Z ${line({ step: 1, loss: 1 })}`,
      `2026-11-24T14:38:37.5Z ${line({ step: 2, loss: 0.9, time: 1_000_000_000 })}`,
      `not-a-timestamp ${line({ step: 3, loss: 0.8 })}`,
    ].join('\n');
    const r = parseProgressLog(chunk, { timestamps: true });
    expect(r.samples.map((s) => s.time)).toEqual([Date.parse('2026-11-24T14:38:36.123Z'), 1_000_000_000_000, undefined]);
  });

  const bad: [string, string, string][] = [
    ['malformed', 'not JSON', `${PROGRESS_PREFIX} {step: 1}`],
    ['malformed', 'truncated', `${PROGRESS_PREFIX} {"step":1,"loss":`],
    ['malformed', 'an array', `${PROGRESS_PREFIX} [1,2]`],
    ['malformed', 'null', `${PROGRESS_PREFIX} null`],
    ['malformed', 'nothing after the prefix', `${PROGRESS_PREFIX} `],
    ['invalid-field', 'no step', line({ loss: 1 })],
    ['invalid-field', 'step as a string', line({ step: '1', loss: 1 })],
    ['invalid-field', 'neither metric nor loss', line({ step: 1 })],
    ['invalid-field', 'metric without direction', line({ step: 1, metric: 0.5 })],
    ['invalid-field', 'direction not a boolean', line({ step: 1, metric: 0.5, higherIsBetter: 'yes' })],
    ['invalid-field', 'metric as a string', line({ step: 1, metric: '0.5', higherIsBetter: true })],
    ['invalid-field', 'name with spaces', line({ step: 1, metric: 0.5, higherIsBetter: true, name: 'val acc' })],
    ['invalid-field', 'name too long', line({ step: 1, metric: 0.5, higherIsBetter: true, name: 'x'.repeat(65) })],
    ['invalid-field', 'time as a string', line({ step: 1, loss: 1, time: '2026-11-24T00:00:00Z' })],
    ['invalid-field', 'epochs as a string', line({ step: 1, loss: 1, epochs: '90' })],
    ['out-of-range', 'zero epochs', line({ step: 1, loss: 1, epochs: 0 })],
    ['out-of-range', 'fractional totalSteps', line({ step: 1, loss: 1, totalSteps: 10.5 })],
    ['out-of-range', 'totalSteps beyond 2^53', `${PROGRESS_PREFIX} {"step": 1, "loss": 1, "totalSteps": 9007199254740993}`],
    ['non-finite', 'epochs 1e400', `${PROGRESS_PREFIX} {"step": 1, "loss": 1, "epochs": 1e400}`],
    ['non-finite', 'NaN (Python json.dumps)', `${PROGRESS_PREFIX} {"step": 1, "loss": NaN}`],
    ['non-finite', 'Infinity', `${PROGRESS_PREFIX} {"step": 1, "metric": -Infinity, "higherIsBetter": true}`],
    ['non-finite', '1e400 overflows', `${PROGRESS_PREFIX} {"step": 1, "loss": 1e400}`],
    ['out-of-range', 'negative step', line({ step: -1, loss: 1 })],
    ['out-of-range', 'fractional step', line({ step: 1.5, loss: 1 })],
    ['out-of-range', 'step beyond 2^53', `${PROGRESS_PREFIX} {"step": 9007199254740993, "loss": 1}`],
    ['out-of-range', 'huge loss', line({ step: 1, loss: 1e16 })],
    ['out-of-range', 'huge target', line({ step: 1, loss: 1, target: -1e16 })],
    ['out-of-range', 'negative epoch', line({ step: 1, loss: 1, epoch: -1 })],
    ['out-of-range', 'time in milliseconds', line({ step: 1, loss: 1, time: 1_795_000_000_000 })],
    ['out-of-range', 'time zero', line({ step: 1, loss: 1, time: 0 })],
    ['unsupported-version', 'version 2', line({ v: 2, step: 1, loss: 1 })],
    ['oversized', 'a line over the limit', line({ step: 1, loss: 1, pad: 'x'.repeat(MAX_LINE_LENGTH) })],
  ];
  it.each(bad)('ignores and counts %s: %s', (reason, _what, text) => {
    const r = parseProgressLog(`${line({ step: 0, loss: 3 })}\n${text}\n${line({ step: 9, loss: 2 })}\n`);
    expect(r.samples.map((s) => s.step)).toEqual([0, 9]);
    expect(r.rejected).toEqual({ [reason]: 1 });
    expect(r.firstRejection).toMatchObject({ reason, line: 2 });
  });

  it('keeps only the latest samples beyond the bound and counts the rest', () => {
    const chunk = Array.from({ length: 1000 }, (_, i) => line({ step: i, loss: 1 })).join('\n');
    const r = parseProgressLog(chunk, { maxSamples: 10 });
    expect(r.samples.map((s) => s.step)).toEqual([990, 991, 992, 993, 994, 995, 996, 997, 998, 999]);
    expect(r.rejected).toEqual({ excess: 990 });
    expect(parseProgressLog(chunk).samples).toHaveLength(256);
    expect(parseProgressLog(chunk, { maxSamples: 0 }).rejected).toEqual({ excess: 1000 });
  });

  it('never throws, whatever the chunk holds', () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom(
        PROGRESS_PREFIX + ' ',
        '{',
        '}',
        '"step":',
        '1e400',
        'NaN',
        '\n',
        '\r',
        '\b',
        '\x1b[1m',
        'Epoch 1/2',
        '10/10 ',
        ' - loss: ',
        ' - val_acc: ',
      ),
      fc.json(),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), fc.boolean(), (parts, timestamps) => {
        const r = parseProgressLog(parts.join(''), { timestamps });
        for (const s of r.samples) expect(Number.isFinite(s.value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('stays linear on a huge chunk', () => {
    const huge = `${'x'.repeat(5_000_000)}\n${'\r 1/9 - loss: 1'.repeat(100_000)}\r${line({ step: 1, loss: 1 })}`;
    const r = parseProgressLog(huge);
    expect(r.samples).toHaveLength(1);
  });
});

describe("Keras's own model.fit output", () => {
  it('Keras 2 on a TTY: backspaces and \\r redraws; one sample per epoch, val_accuracy preferred', () => {
    const r = parseProgressLog(fixture('keras2-fit-tty.txt'));
    expect(r.samples).toEqual([
      { source: 'keras', value: 0.957, name: 'val_accuracy', higherIsBetter: true, step: 1875, epoch: 1, epochs: 3, loss: 0.1432 },
      { source: 'keras', value: 0.968, name: 'val_accuracy', higherIsBetter: true, step: 3750, epoch: 2, epochs: 3, loss: 0.105 },
      { source: 'keras', value: 0.9731, name: 'val_accuracy', higherIsBetter: true, step: 5625, epoch: 3, epochs: 3, loss: 0.0889 },
    ]);
    expect(r.rejected).toEqual({});
    expect(r.carry).toMatchObject({ epoch: 3, epochs: 3, validation: true });
  });

  // Captured from Keras 3 (JAX backend): see test/fixtures/progress/README.md.
  it.each([
    ['keras3-jax-fit-pipe.txt', [0.7559, 0.8379, 0.9004]],
    ['keras3-jax-fit-tty.txt', undefined],
    ['keras3-jax-fit-verbose2.txt', [0.8613, 0.8906, 0.916]],
  ])('Keras 3, captured: %s — \\r redraws, ANSI colours, alphabetical metrics', (file, values) => {
    const r = parseProgressLog(fixture(file));
    expect(r.rejected).toEqual({});
    expect(r.samples.map((s) => [s.name, s.higherIsBetter, s.epoch, s.step])).toEqual([
      ['val_accuracy', true, 1, 48],
      ['val_accuracy', true, 2, 96],
      ['val_accuracy', true, 3, 144],
    ]);
    if (values) expect(r.samples.map((s) => s.value)).toEqual(values);
    for (const s of r.samples) expect(s.loss).toBeGreaterThan(0);
  });

  it('Keras 3, captured with the Python callback: only its lines count, although they share a line with the bar', () => {
    const r = parseProgressLog(fixture('keras3-jax-callback.txt'));
    expect(r.rejected).toEqual({});
    expect(r.samples.map((s) => [s.source, s.name, s.epoch, s.step])).toEqual([
      ['protocol', 'val_accuracy', 1, 48],
      ['protocol', 'val_accuracy', 2, 96],
      ['protocol', 'val_accuracy', 3, 144],
    ]);
  });

  it('verbose=2 without validation data: the training accuracy', () => {
    const r = parseProgressLog(fixture('keras2-fit-verbose2.txt'));
    expect(r.samples.map((s) => [s.name, s.value, s.epoch, s.loss])).toEqual([
      ['accuracy', 0.913, 1, 0.2994],
      ['accuracy', 0.9577, 2, 0.1421],
      ['accuracy', 0.9678, 3, 0.1068],
    ]);
  });

  it('carries the epoch across chunks, and without it reports no step', () => {
    const text = fixture('keras2-fit-verbose2.txt');
    const cut = text.indexOf('1875/1875', text.indexOf('Epoch 2/3'));
    const first = parseProgressLog(text.slice(0, cut));
    const second = parseProgressLog(text.slice(cut), { carry: first.carry });
    expect(second.samples.map((s) => s.epoch)).toEqual([2, 3]);
    expect(parseProgressLog(text.slice(cut)).samples[0]).not.toHaveProperty('step');
  });

  it('falls back to val_loss, then loss; never tracks a metric of unknown direction', () => {
    const only = (rest: string): string[] => parseProgressLog(`10/10 - 1s - ${rest}`).samples.map((s) => `${s.name}:${s.higherIsBetter}`);
    expect(only('loss: 0.5 - val_loss: 0.6')).toEqual(['val_loss:false']);
    expect(only('loss: 0.5 - my_score: 3')).toEqual(['loss:false']);
    expect(only('my_score: 3')).toEqual([]);
    expect(only('loss: 0.5 - auc_1: 0.8 - lr: 0.001')).toEqual(['auc_1:true']);
    expect(only('loss: 1.2e-04 - val_mean_squared_error: 3.4e-05')).toEqual(['val_mean_squared_error:false']);
  });

  it('takes nan and overflowing values for a divergence, counts huge ones and ignores mid-epoch lines', () => {
    for (const text of ['10/10 - 1s - loss: nan', '10/10 - 1s - loss: 1e999', '10/10 - 1s - loss: -inf - accuracy: 0.5']) {
      const r = parseProgressLog(text);
      expect(r.samples).toEqual([]);
      expect(r.diverged?.detail).toBe('Keras loss is not finite');
    }
    expect(parseProgressLog('10/10 - 1s - loss: 1e20').rejected).toEqual({ 'out-of-range': 1 });
    expect(parseProgressLog('3/10 [==>...] - ETA: 1s - loss: 0.5').samples).toEqual([]);
  });

  it('skips epochs without validation once validation was seen (validation_freq > 1)', () => {
    const r = parseProgressLog(
      'Epoch 1/3\n5/5 - loss: 1 - val_loss: 2\nEpoch 2/3\n5/5 - loss: 0.9\nEpoch 3/3\n5/5 - loss: 0.8 - val_loss: 1.5\n',
    );
    expect(r.samples.map((s) => [s.epoch, s.name])).toEqual([
      [1, 'val_loss'],
      [3, 'val_loss'],
    ]);
  });
});

describe('a report printed during a Keras epoch on a TTY', () => {
  it('is found after the last \\r redraw of the same line', () => {
    const chunk = `Epoch 1/1\n\r 5/10 [==>...] - loss: 0.5\b\b\b\r10/10 [=====] - loss: 0.4${line({ step: 10, loss: 0.4 })}\n`;
    const r = parseProgressLog(chunk);
    expect(r.samples.map((s) => s.source)).toEqual(['protocol']);
  });
});

describe('a log with both structured lines and Keras output', () => {
  it('uses only the structured lines, in this chunk and the next', () => {
    const first = parseProgressLog(
      `Epoch 1/2\n5/5 - loss: 1 - val_loss: 2\n${line({ step: 5, metric: 30, name: 'bleu', higherIsBetter: true })}\n`,
    );
    expect(first.samples.map((s) => s.name)).toEqual(['bleu']);
    expect(first.carry.protocol).toBe(true);
    const next = parseProgressLog('Epoch 2/2\n5/5 - loss: 0.9 - val_loss: 1.8\n', { carry: first.carry });
    expect(next.samples).toEqual([]);
  });
});

describe('control characters around a structured line', () => {
  it('ignores backspaces and colours around the JSON object', () => {
    const r = parseProgressLog(`\x1b[1m${line({ step: 3, loss: 1 })}\b\b\b\x1b[0m\n`);
    expect(r.samples.map((s) => s.step)).toEqual([3]);
    expect(r.rejected).toEqual({});
  });

  it('does not complain about Keras values once the job reports on purpose', () => {
    const r = parseProgressLog(`${line({ step: 3, loss: 1 })}\n10/10 - 1s - loss: nan\n`);
    expect(r.rejected).toEqual({});
  });
});
