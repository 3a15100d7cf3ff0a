// The reader against a log served as the kubelet serves a CRI log file (cri-log.ts): progress bars
// redrawn with \r on one line for a whole epoch, lines split into 16 KiB records, bursts larger than
// one read, and divergence. One pods/log request per job per round throughout.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_LIMIT_BYTES, ProgressReader, type ProgressTarget } from '../../../../src/progress/follower/reader.ts';
import { CriLog } from './cri-log.ts';

const T0 = Date.UTC(2026, 10, 25, 0, 0, 0);
const target: ProgressTarget = { key: 'a', namespace: 'ns', pod: 'a-worker-0', podUid: 'u1', container: 'tensorflow', workers: 1 };

/** Keras 3's redraw of its bar (backspaces over the previous one, then \r), as captured from TF 2.21. */
const redraw = (i: number, total: number) =>
  `${'\b'.repeat(60)}\r\x1b[1m${String(i).padStart(String(total).length)}/${total}\x1b[0m \x1b[37m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m1s\x1b[0m 2ms/step - accuracy: 0.${String(i % 97).padStart(2, '0')} - loss: 0.7`;
const finalRedraw = (total: number, acc: string) =>
  `${'\b'.repeat(60)}\r\x1b[1m${total}/${total}\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m9s\x1b[0m 2ms/step - accuracy: 0.6 - loss: 0.6 - val_accuracy: ${acc} - val_loss: 0.5\n`;

/** About `bytes` of redraws of one epoch's bar (no newline). */
function bar(from: number, bytes: number, total: number): { text: string; next: number } {
  const parts: string[] = [];
  let size = 0;
  let i = from;
  while (size < bytes) {
    const r = redraw(i, total);
    parts.push(r);
    size += r.length;
    i = Math.min(total - 1, i + 1);
  }
  return { text: parts.join(''), next: i };
}

describe('a progress bar redrawn on one line for a whole epoch', () => {
  it('never stalls the reader: a 24 MB line read one round at a time, the epoch appears at the first read after it ends', async () => {
    const log = new CriLog();
    let now = T0;
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 10 });
    log.write('Epoch 1/2\n', now);
    let i = 1;
    let unread = 0;
    // 24 rounds, each after another MiB of redraws (64 records of 16 KiB): the line outgrows a read at once.
    for (let round = 0; round < 24; round++) {
      const b = bar(i, 1024 * 1024, 10_000_000);
      i = b.next;
      now += 1_000;
      log.write(b.text, now);
      const r = await reader.round([target]);
      unread += r.skipped?.get('unread') ?? 0;
      expect(reader.view('a')).toBeUndefined();
    }
    // Each read into the line began inside a redraw: that piece is counted, not parsed.
    expect(unread).toBeGreaterThan(20);
    now += 1_000;
    log.write(`${finalRedraw(10_000_000, '0.7324')}Epoch 2/2\n${bar(1, 40_000, 10_000_000).text}`, now);
    now += 1_000;
    await reader.round([target]);
    expect(reader.view('a')).toMatchObject({ name: 'val_accuracy', metric: 0.7324, epoch: 1, step: 10_000_000 });

    // One request per round, none larger than the byte limit, and the tail of the log, not its start.
    expect(log.requests).toHaveLength(25);
    expect(Math.max(...log.answerBytes)).toBeLessThanOrEqual(DEFAULT_LOG_LIMIT_BYTES);
    expect(log.requests.slice(2, 24).every((r) => r.tailLines !== undefined && r.sinceTime === undefined)).toBe(true);

    // Epoch 2 is an ordinary line again: read by time, then its end.
    now += 1_000;
    log.write(`${bar(3, 5_000, 10_000_000).text}${finalRedraw(10_000_000, '0.8066')}`, now);
    now += 1_000;
    await reader.round([target]);
    expect(reader.view('a')).toMatchObject({ epoch: 2, step: 20_000_000 });
    expect(log.requests.at(-1)?.sinceTime).toBeDefined();
  });

  it('does not take a line read before its end for read: the end of the bar gives the epoch (the old reader skipped it)', async () => {
    const log = new CriLog();
    let now = T0;
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 10 });
    // A 48-step epoch (the line is short): read in the middle, then finished in the same second.
    log.write(`Epoch 1/3\n${bar(1, 2_000, 48).text}`, now);
    await reader.round([target]);
    log.write(finalRedraw(48, '0.75'), now + 400);
    now += 1_000;
    await reader.round([target]);
    expect(reader.view('a')).toMatchObject({ metric: 0.75, epoch: 1, step: 48 });
    // The mid-epoch bar with 48/48 before validation made no sample of its own.
    now += 1_000;
    log.write(`Epoch 2/3\n${bar(1, 500, 48).text}${redraw(48, 48)}${finalRedraw(48, '0.85')}`, now);
    now += 1_000;
    await reader.round([target]);
    expect(reader.view('a')).toMatchObject({ name: 'val_accuracy', epoch: 2, step: 96 });
  });

  it('after a burst larger than one read, goes to the newest lines instead of falling behind', async () => {
    const log = new CriLog();
    let now = T0;
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 10 });
    log.write('Epoch 1/9\n', now);
    await reader.round([target]);
    now += 1_000;
    // 600 KB of other output, then the epoch's end.
    log.write(`${Array.from({ length: 6_000 }, (_, k) => `INFO some library chatter ${k} ${'.'.repeat(70)}`).join('\n')}\n`, now);
    log.write('100/100 - 3s - loss: 0.5 - accuracy: 0.8 - val_loss: 0.6 - val_accuracy: 0.7\n', now);
    now += 1_000;
    const first = await reader.round([target]);
    expect(first.read).toEqual(['a']);
    expect(reader.view('a')).toBeUndefined();
    now += 1_000;
    await reader.round([target]);
    expect(reader.view('a')).toMatchObject({ metric: 0.7, epoch: 1, step: 100 });
    expect(log.requests.map((r) => (r.tailLines !== undefined ? 'tail' : 'since'))).toEqual(['tail', 'since', 'tail']);
    // Caught up: the next read is by time again.
    now += 1_000;
    await reader.round([target]);
    expect(log.requests.at(-1)?.sinceTime).toBeDefined();
  });
});

describe('divergence', () => {
  it('a NaN loss makes the job Diverged (once), a finite value afterwards ends it', async () => {
    const log = new CriLog();
    let now = T0;
    const reader = new ProgressReader({ logs: log, now: () => now, maxReadsPerRound: 10 });
    log.write('Epoch 1/3\n16/16 - 2s - loss: 0.7568 - accuracy: 0.5098 - val_loss: 0.7895 - val_accuracy: 0.4375\n', now);
    await reader.round([target]);
    expect(reader.view('a')?.phase).toBe('Progressing');
    now += 1_000;
    // Captured from TF 2.15 (SGD with a learning rate of 1e12): val_accuracy stays finite.
    log.write('Epoch 2/3\n16/16 - 1s - loss: nan - accuracy: 0.4980 - val_loss: nan - val_accuracy: 0.4297\n', now);
    const r = await reader.round([target]);
    expect(r.diverged?.get('a')).toBe('Keras loss is not finite');
    expect(r.phaseChanges.get('a')).toEqual(['Progressing', 'Diverged']);
    expect(reader.view('a')).toMatchObject({ phase: 'Diverged', metric: 0.4375, detail: 'Keras loss is not finite' });
    now += 1_000;
    log.write('Epoch 3/3\n16/16 - 1s - loss: nan - accuracy: 0.4980 - val_loss: nan - val_accuracy: 0.4297\n', now);
    const again = await reader.round([target]);
    expect(again.diverged?.size ?? 0).toBe(0);
    expect(again.phaseChanges.size).toBe(0);
    now += 1_000;
    log.write('Epoch 1/3\n16/16 - 1s - loss: 0.7 - accuracy: 0.5 - val_loss: 0.7 - val_accuracy: 0.5\n', now);
    const back = await reader.round([target]);
    expect(back.phaseChanges.get('a')).toEqual(['Diverged', 'Progressing']);
  });
});
