// Recognises the progress output Keras's `model.fit` writes by default, so that jobs which never heard
// of the protocol still give a signal. Only the line that ends an epoch becomes a sample: mid-epoch
// lines carry running averages of the training batches, which would mix with validation values.

import { detach } from './detach.ts';
import { chooseTracked, direction, readMetric, textOutcome, type TextCarry, type TextOutcome } from './metrics-text.ts';

/** What one chunk tells the next about Keras's output (the caller passes it back in). */
export interface KerasCarry extends TextCarry {
  /** 1-based number of the epoch in progress, from the last `Epoch k/n` header. */
  readonly epoch?: number;
  /** n of that header: the number of epochs the job plans. */
  readonly epochs?: number;
  /** The epoch whose end was read last, and the end of its line (a line read twice is one epoch end). */
  readonly ended?: number;
  readonly lastEnd?: string;
}

const EPOCH_HEADER = /^\s*Epoch (\d{1,9})\/(\d{1,9})\s*$/;
// `12/100 [====>...] - ETA: 3s - loss: ...` (Keras 2), `12/100 ━━━━ 3s 2ms/step - loss: ...` (Keras 3),
// `100/100 - 3s - loss: ...` (verbose=2); `Unknown` when the dataset has no length.
const PROGRESS_LINE = /^\s*(\d{1,12})\/(\d{1,12}|Unknown)\b(.*)$/;
const METRIC_ENTRY = /(?:^|\s)-\s+([A-Za-z_][\w.]{0,63}):\s+(\S+)/g;
// Keras 2 prints the epoch's last batch once with an ETA before the final line with validation values.
const ETA = /\s-\sETA:\s/;

export type KerasOutcome = {
  readonly carry: KerasCarry;
  /** The segment is Keras output (an epoch header or a progress bar), whether or not it ends an epoch. */
  readonly recognized: boolean;
  readonly outcome?: TextOutcome;
};

/**
 * Looks at the last segment of one line (split at \r and \n, control characters removed): earlier
 * segments are redraws of the same progress bar.
 */
export function parseKerasSegment(segment: string, carry: KerasCarry, logTime: number | undefined): KerasOutcome {
  const header = EPOCH_HEADER.exec(segment);
  if (header) return { carry: { ...carry, epoch: Number(header[1]), epochs: Number(header[2]) }, recognized: true };
  const line = PROGRESS_LINE.exec(segment);
  if (!line) return { carry, recognized: false };
  const [, doneText, totalText, rest] = line as unknown as [string, string, string, string];
  const entries = new Map<string, string>();
  for (const m of rest.matchAll(METRIC_ENTRY)) entries.set(m[1]!, m[2]!);
  const hasValidation = [...entries.keys()].some((k) => k.startsWith('val_') && direction(k) !== undefined);
  const endsEpoch = hasValidation || (doneText === totalText && !ETA.test(rest));
  if (!endsEpoch || entries.size === 0) return { carry, recognized: true };

  // The same epoch end again (a reader that lost its place reads a line twice): nothing new.
  const key = detach(`${segment.length}:${segment.slice(-120)}`);
  if (carry.lastEnd === key) return { carry, recognized: true };
  // A second end of the same epoch means its `Epoch k/n` header was not read (a reader that skipped
  // part of the log): Keras ends each epoch once. Not past the plan: after the last epoch, such a line
  // is `model.evaluate()`'s.
  const current = carry.epoch;
  const epoch = current !== undefined && carry.ended === current && current < (carry.epochs ?? 0) ? current + 1 : current;
  const next: KerasCarry = { ...carry, ...(epoch !== undefined ? { epoch, ended: epoch } : {}), lastEnd: key };
  const stepsPerEpoch = totalText === 'Unknown' ? Number(doneText) : Number(totalText);
  // Keras numbers epochs from 1; after epoch k with s steps each, k·s batches have been seen (fit runs
  // a fixed number of steps per epoch unless the dataset is exhausted early).
  const step = epoch !== undefined && Number.isSafeInteger(epoch * stepsPerEpoch) ? epoch * stepsPerEpoch : undefined;
  const name = chooseTracked(entries);
  const metrics = [...entries].map(([n, text]) => ({ name: n, value: readMetric(text) }));
  const outcome = textOutcome('keras', { name, metrics, validation: hasValidation }, carry, {
    ...(step !== undefined ? { step } : {}),
    ...(epoch !== undefined ? { epoch } : {}),
    ...(carry.epochs !== undefined ? { epochs: carry.epochs } : {}),
    ...(logTime !== undefined ? { time: logTime } : {}),
  });
  return { carry: hasValidation ? { ...next, validation: true } : next, recognized: true, ...(outcome ? { outcome } : {}) };
}
