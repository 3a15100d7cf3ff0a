// Recognises the progress output Keras's `model.fit` writes by default, so that jobs which never heard
// of the protocol still give a signal. Only the line that ends an epoch becomes a sample: mid-epoch
// lines carry running averages of the training batches, which would mix with validation values.

import { MAX_ABS_VALUE, type LineOutcome, type ProgressSample } from './protocol.ts';

/** What one chunk tells the next about Keras's output (the caller passes it back in). */
export interface KerasCarry {
  /** 1-based number of the epoch in progress, from the last `Epoch k/n` header. */
  readonly epoch?: number;
  /** Validation metrics were seen: later epoch lines without them (validation_freq > 1) are skipped. */
  readonly validation?: boolean;
}

const EPOCH_HEADER = /^\s*Epoch (\d{1,9})\/\d{1,9}\s*$/;
// `12/100 [====>...] - ETA: 3s - loss: ...` (Keras 2), `12/100 ━━━━ 3s 2ms/step - loss: ...` (Keras 3),
// `100/100 - 3s - loss: ...` (verbose=2); `Unknown` when the dataset has no length.
const PROGRESS_LINE = /^\s*(\d{1,12})\/(\d{1,12}|Unknown)\b(.*)$/;
const METRIC_ENTRY = /(?:^|\s)-\s+([A-Za-z_][\w.]{0,63}):\s+(\S+)/g;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;

// Direction of Keras's built-in metrics, by the name it prints (numbered copies such as `auc_1` too).
// A name not listed has no known direction and is never tracked: it would be a guess.
const HIGHER = /(?:^|_)(?:accuracy|acc|auc|precision|recall|f1_score|fbeta_score|r2_score|iou)$/;
const LOWER = /(?:^|_)(?:loss|error|mae|mse|mape|msle|rmse|crossentropy|hinge|divergence|kld|poisson|logcosh)$/;

function direction(name: string): boolean | undefined {
  const base = name.replace(/^val_/, '').replace(/_\d+$/, '');
  if (HIGHER.test(base)) return true;
  if (LOWER.test(base)) return false;
  return undefined;
}

/**
 * The tracked metric of an epoch line: a validation metric (not the loss) first, then the validation
 * loss, then the same order among training metrics. Deterministic, so every epoch tracks the same name.
 */
function choose(entries: ReadonlyMap<string, string>): string | undefined {
  const names = [...entries.keys()].filter((n) => direction(n) !== undefined);
  const isLoss = (n: string): boolean => /(?:^|_)loss$/.test(n.replace(/_\d+$/, ''));
  return (
    names.find((n) => n.startsWith('val_') && !isLoss(n)) ??
    names.find((n) => n.startsWith('val_')) ??
    names.find((n) => !isLoss(n)) ??
    names[0]
  );
}

export type KerasOutcome = { readonly carry: KerasCarry; readonly outcome?: LineOutcome };

/** Looks at one line segment (already split at \r and \n, control characters removed). */
export function parseKerasSegment(segment: string, carry: KerasCarry, logTime: number | undefined): KerasOutcome {
  const header = EPOCH_HEADER.exec(segment);
  if (header) return { carry: { ...carry, epoch: Number(header[1]) } };
  const line = PROGRESS_LINE.exec(segment);
  if (!line) return { carry };
  const [, doneText, totalText, rest] = line as unknown as [string, string, string, string];
  const entries = new Map<string, string>();
  for (const m of rest.matchAll(METRIC_ENTRY)) entries.set(m[1]!, m[2]!);
  const hasValidation = [...entries.keys()].some((k) => k.startsWith('val_'));
  const endsEpoch = hasValidation || doneText === totalText;
  if (!endsEpoch || entries.size === 0) return { carry };
  const nextCarry: KerasCarry = hasValidation ? { ...carry, validation: true } : carry;
  if (carry.validation === true && !hasValidation) return { carry: nextCarry };

  const name = choose(entries);
  if (name === undefined) return { carry: nextCarry };
  const text = entries.get(name)!;
  if (NON_FINITE.test(text)) return { carry: nextCarry, outcome: { reason: 'non-finite', detail: `Keras ${name} is ${text}` } };
  if (!NUMBER.test(text)) return { carry: nextCarry };
  const value = Number(text);
  if (!Number.isFinite(value)) return { carry: nextCarry, outcome: { reason: 'non-finite', detail: `Keras ${name} overflows` } };
  if (Math.abs(value) > MAX_ABS_VALUE) return { carry: nextCarry, outcome: { reason: 'out-of-range', detail: `Keras ${name} too large` } };

  const lossText = entries.get(name.startsWith('val_') ? 'val_loss' : 'loss');
  const loss = lossText !== undefined && NUMBER.test(lossText) ? Number(lossText) : undefined;
  const stepsPerEpoch = totalText === 'Unknown' ? Number(doneText) : Number(totalText);
  // Keras numbers epochs from 1; after epoch k with s steps each, k·s batches have been seen (fit runs
  // a fixed number of steps per epoch unless the dataset is exhausted early).
  const step = carry.epoch !== undefined && Number.isSafeInteger(carry.epoch * stepsPerEpoch) ? carry.epoch * stepsPerEpoch : undefined;
  const sample: ProgressSample = {
    source: 'keras',
    value,
    name,
    higherIsBetter: direction(name)!,
    ...(step !== undefined ? { step } : {}),
    ...(carry.epoch !== undefined ? { epoch: carry.epoch } : {}),
    ...(loss !== undefined && Number.isFinite(loss) && Math.abs(loss) <= MAX_ABS_VALUE ? { loss } : {}),
    ...(logTime !== undefined ? { time: logTime } : {}),
  };
  return { carry: nextCarry, outcome: { sample } };
}
