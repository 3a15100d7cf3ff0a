// Every format the parser reads, on logs captured from real TensorFlow runs (test/fixtures/progress-logs,
// README there: versions and commands), plus the bugs of issue 30 and lines of other tools that must
// give nothing.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProgressReader } from '../../../../src/progress/follower/reader.ts';
import { parseProgressLog, type ProgressSample } from '../../../../src/progress/signals/index.ts';
import { CriLog } from '../follower/cri-log.ts';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../../../fixtures/progress-logs', name), 'utf8');
const brief = (s: ProgressSample) => [s.source, s.name, s.value, s.epoch, s.epochs, s.step];

const epochs3 = (values: readonly number[]) => values.map((v, i) => ['keras', 'val_accuracy', v, i + 1, 3, 16 * (i + 1)]);

describe('Keras model.fit, captured', () => {
  it.each([
    // tf.keras 2.15: the bar redraws with backspaces and \r also into a pipe; the epoch's last batch is
    // drawn once with an ETA before the line with validation values (was an extra sample).
    ['tf215-fit-v1-pipe.txt', [0.5234, 0.5312, 0.5547]],
    ['tf215-fit-v1-tty.txt', [0.5938, 0.6016, 0.6328]],
    ['tf215-fit-v2.txt', [0.4375, 0.4375, 0.4609]],
    // Keras 3.15 on TF 2.21: \r redraws with ANSI colours; `16/16` without validation values is drawn
    // before the last redraw (was an extra training-accuracy sample and a name switch).
    ['tf221-keras3-v1-pipe.txt', [0.5781, 0.5938, 0.625]],
    ['tf221-keras3-v1-tty.txt', [0.4453, 0.4453, 0.4531]],
    ['tf221-keras3-v2.txt', [0.4453, 0.4609, 0.5]],
    // tf_keras 2.21 (Keras 2 on TF 2.21).
    ['tf221-tfkeras-v1-pipe.txt', [0.5078, 0.5234, 0.5469]],
    ['tf221-tfkeras-v2.txt', [0.4922, 0.4922, 0.5]],
  ])('%s: one val_accuracy sample per epoch, with the plan (Epoch k/3)', (file, values) => {
    const r = parseProgressLog(fixture(file));
    expect(r.samples.map(brief)).toEqual(epochs3(values));
    expect(r.rejected).toEqual({});
    expect(r.diverged).toBeUndefined();
  });

  it.each(['tf215-fit-v2-nan.txt', 'tf221-keras3-v1-nan.txt'])(
    '%s: loss nan with a finite val_accuracy is a divergence, no sample',
    (file) => {
      const r = parseProgressLog(fixture(file));
      expect(r.samples).toEqual([]);
      expect(r.diverged?.detail).toBe('Keras loss is not finite');
      expect(r.position).toMatchObject({ epoch: 3, epochs: 3, step: 48 });
    },
  );

  it('validation every other epoch: the epochs between only move the position, the tracked name stays', () => {
    // Epoch 2's line without its validation values, as validation_freq=2 prints it.
    const text = fixture('tf221-tfkeras-v2.txt').replace(' - val_loss: 0.7636 - val_accuracy: 0.4922', '');
    const first = parseProgressLog(text.slice(0, text.indexOf('Epoch 3/3')));
    expect(first.samples.map((s) => [s.name, s.epoch])).toEqual([['val_accuracy', 1]]);
    expect(first.position).toMatchObject({ epoch: 2, step: 32 });
    const all = parseProgressLog(text);
    expect(all.samples.map((s) => [s.name, s.epoch])).toEqual([
      ['val_accuracy', 1],
      ['val_accuracy', 3],
    ]);
  });

  it('an epoch end whose header was not read counts as the next epoch, up to the plan (then it is evaluate())', () => {
    const end = (acc: number) => `16/16 - 1s - loss: 0.7 - accuracy: ${acc} - val_loss: 0.7 - val_accuracy: ${acc}\n`;
    const r = parseProgressLog(`Epoch 1/2\n${end(0.5)}${end(0.6)}${end(0.7)}`);
    expect(r.samples.map((s) => [s.epoch, s.step])).toEqual([
      [1, 16],
      [2, 32],
      [2, 32],
    ]);
    // The same line read twice is one epoch end.
    expect(parseProgressLog(`Epoch 1/2\n${end(0.5)}${end(0.5)}`).samples).toHaveLength(1);
  });

  it('a terminal-title escape before the epoch header does not hide it', () => {
    const r = parseProgressLog('\x1b]0;python train.py\x07Epoch 1/2\n16/16 - 1s - loss: 0.7 - accuracy: 0.5\n');
    expect(r.samples.map(brief)).toEqual([['keras', 'accuracy', 0.5, 1, 2, 16]]);
  });
});

describe('tf.estimator (TF 2.15), captured', () => {
  it('training loss lines until the first evaluation, then its accuracy; the loss lines then only move the step', () => {
    const r = parseProgressLog(fixture('tf215-estimator.txt'));
    expect(r.samples.map(brief)).toEqual([
      ['estimator', 'loss', 0.70768833, undefined, undefined, 0],
      ['estimator', 'loss', 0.7905515, undefined, undefined, 20],
      ['estimator', 'loss', 0.8202665, undefined, undefined, 40],
      ['estimator', 'accuracy', 0.55, undefined, undefined, 50],
      ['estimator', 'accuracy', 0.54375, undefined, undefined, 100],
    ]);
    expect(r.position).toMatchObject({ step: 100 });
    expect(r.rejected).toEqual({});
  });
});

describe('custom training loops, captured (TF 2.15)', () => {
  it('absl key=value lines with Epoch k/N', () => {
    const r = parseProgressLog(fixture('tf215-absl.txt'));
    expect(r.samples.map(brief)).toEqual([0.6797, 0.7812, 0.8438, 0.875].map((v, i) => ['log', 'val_accuracy', v, i + 1, 4, undefined]));
    expect(r.position).toMatchObject({ step: 64, epoch: 4, epochs: 4 });
  });

  it('Python logging key: value lines with a step', () => {
    const r = parseProgressLog(fixture('tf215-logging.txt'));
    expect(r.samples.map(brief)).toEqual(
      [0.6797, 0.7812, 0.8438, 0.875].map((v, i) => ['log', 'val_accuracy', v, undefined, undefined, 16 * (i + 1)]),
    );
  });

  it('absl lines with loss=nan are a divergence', () => {
    const r = parseProgressLog(fixture('tf215-absl-nan.txt'));
    expect(r.samples).toEqual([]);
    expect(r.diverged?.detail).toBe('log line: loss is not finite');
  });
});

describe('divergence in a structured line', () => {
  it('a NaN written by json.dumps is counted and diverges the job; a later finite line ends it', () => {
    const nan = 'TFJOB_PROGRESS {"step": 20, "loss": NaN}\n';
    const r = parseProgressLog(nan);
    expect(r.rejected).toEqual({ 'non-finite': 1 });
    expect(r.diverged?.detail).toBe('progress line: NaN or Infinity in the JSON object');
    expect(parseProgressLog(`${nan}TFJOB_PROGRESS {"step": 30, "loss": 0.5}\n`).diverged).toBeUndefined();
  });
});

describe('mpirun --tag-output (Horovod), rank tags added to captures', () => {
  it.each([
    ['tf215-fit-v1-pipe.mpi.txt', 'tf215-fit-v1-pipe.txt'],
    ['tf221-tfkeras-v2.mpi.txt', 'tf221-tfkeras-v2.txt'],
  ])('%s: rank 0 read as without tags, other ranks ignored', (tagged, plain) => {
    const r = parseProgressLog(fixture(tagged));
    expect(r.samples).toEqual(parseProgressLog(fixture(plain)).samples);
    expect(r.samples).toHaveLength(3);
  });
});

/** A CRI log file as the kubelet serves it with timestamps: the stamp at each line's first record only. */
function kubeletView(cri: string): string {
  let out = '';
  let lineStart = true;
  for (const rec of cri.split('\n')) {
    const m = /^(\S+) (?:stdout|stderr) ([PF]) (.*)$/s.exec(rec);
    if (!m) continue;
    out += `${lineStart ? `${m[1]!} ` : ''}${m[3]!}${m[2] === 'F' ? '\n' : ''}`;
    lineStart = m[2] === 'F';
  }
  return out;
}

describe('CRI log file with partial records (Keras 3 bar lines of 29 KB, framed as containerd writes them)', () => {
  const cri = fixture('tf221-keras3-v1-long.cri.txt');

  it('has lines split into P records; read through the kubelet, one sample per epoch with the log time', () => {
    expect(cri.split('\n').filter((l) => / stdout P /.test(l))).toHaveLength(2);
    const r = parseProgressLog(kubeletView(cri), { timestamps: true });
    expect(r.samples.map((s) => [s.name, s.epoch, s.epochs, s.step])).toEqual([
      ['val_accuracy', 1, 2, 250],
      ['val_accuracy', 2, 2, 500],
    ]);
    for (const s of r.samples) expect(s.time).toBeGreaterThan(Date.UTC(2026, 10, 27, 11, 29));
  });

  // Each bar line is two records (16 KiB P, then F): read after the first, the line is unfinished and
  // must not be taken for read. (Bar lines longer than a read: test/unit/progress/follower/long-lines.test.ts.)
  it('the reader gets both epochs when the records arrive one per read', async () => {
    const log = new CriLog();
    const records = cri.split('\n').filter((l) => l !== '');
    let now = Date.UTC(2026, 10, 27, 11, 29, 0);
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 1 });
    const target = { key: 'a', namespace: 'ns', pod: 'p', podUid: 'u', container: 'tensorflow', workers: 1 };
    const epochs: number[] = [];
    for (const rec of records) {
      log.append(rec);
      now += 1_000;
      await reader.round([target]);
      const e = reader.view('a')?.epoch;
      if (e !== undefined && e !== epochs.at(-1)) epochs.push(e);
    }
    expect(epochs).toEqual([1, 2]);
  });
});

describe('lines of other tools', () => {
  it('give no sample, no divergence and no complaint (numbers in paths, tqdm, tracebacks, JSON logs, terminal titles, other ranks)', () => {
    const text = fixture('adversarial.txt');
    for (const line of text.split('\n')) {
      const r = parseProgressLog(`${line}\n`);
      expect({ line, samples: r.samples, diverged: r.diverged, rejected: r.rejected }).toEqual({
        line,
        samples: [],
        diverged: undefined,
        rejected: {},
      });
    }
    expect(parseProgressLog(text).samples).toEqual([]);
  });
});
