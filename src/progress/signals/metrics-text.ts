// What the library formats (Keras, Estimator, logging lines) share once a line is cut into metric
// names and values: the direction of a name, which name is tracked, and what a line amounts to —
// a sample, a position without a tracked value, a divergence (NaN/Inf), or a rejection.

import { detach } from './detach.ts';
import { MAX_ABS_VALUE, type ProgressPosition, type ProgressSample, type RejectReason, type SampleSource } from './protocol.ts';

/** What earlier lines of a log tell the next about metric lines. */
export interface TextCarry {
  /** Validation (or evaluation) values were seen: later lines without them only move the position. */
  readonly validation?: boolean;
}

export type TextOutcome =
  | { readonly sample: ProgressSample }
  | { readonly position: ProgressPosition }
  | { readonly diverged: string; readonly position: ProgressPosition }
  | { readonly reason: RejectReason; readonly detail: string };

// Direction of Keras's built-in metrics, by the name it prints (numbered copies such as `auc_1` too).
// A name not listed has no known direction and is never tracked: it would be a guess.
const HIGHER = /(?:^|_)(?:accuracy|acc|auc|precision|recall|f1_score|fbeta_score|r2_score|iou)$/;
const LOWER = /(?:^|_)(?:loss|error|mae|mse|mape|msle|rmse|crossentropy|hinge|divergence|kld|poisson|logcosh)$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;

/** true: higher is better; false: lower is; undefined: unknown name. */
export function direction(name: string): boolean | undefined {
  const base = name.replace(/^(?:val|eval|validation)_/, '').replace(/_\d+$/, '');
  if (HIGHER.test(base)) return true;
  if (LOWER.test(base)) return false;
  return undefined;
}

const isLoss = (n: string): boolean => /(?:^|_)loss$/.test(n.replace(/_\d+$/, ''));

/**
 * The tracked metric of a line: a validation metric (not the loss) first, then the validation loss,
 * then the same order among training metrics. Deterministic, so every epoch tracks the same name.
 */
export function chooseTracked(entries: ReadonlyMap<string, unknown>): string | undefined {
  const names = [...entries.keys()].filter((n) => direction(n) !== undefined);
  return (
    names.find((n) => n.startsWith('val_') && !isLoss(n)) ??
    names.find((n) => n.startsWith('val_')) ??
    names.find((n) => !isLoss(n)) ??
    names[0]
  );
}

/** A printed value: a number, `non-finite` (nan, inf, 1e999), `out-of-range`, or undefined (not a number). */
export type MetricValue = number | 'non-finite' | 'out-of-range' | undefined;

export function readMetric(text: string): MetricValue {
  const t = text.replace(/[,;]$/, '');
  if (NON_FINITE.test(t)) return 'non-finite';
  if (!NUMBER.test(t)) return undefined;
  const value = Number(t);
  if (!Number.isFinite(value)) return 'non-finite';
  return Math.abs(value) > MAX_ABS_VALUE ? 'out-of-range' : value;
}

export interface MetricLine {
  /** The tracked name among the metrics (chooseTracked), if any has a known direction. */
  readonly name: string | undefined;
  readonly metrics: readonly { readonly name: string; readonly value: MetricValue }[];
  /** The line has validation or evaluation values. */
  readonly validation: boolean;
}

/**
 * What a recognised metric line amounts to. A NaN or infinite value of any metric of known direction
 * (loss included) is a divergence: the other values of that line mean nothing then.
 */
export function textOutcome(
  source: Exclude<SampleSource, 'protocol'>,
  line: MetricLine,
  carry: TextCarry,
  position: ProgressPosition,
): TextOutcome | undefined {
  const value = (n: string): MetricValue => line.metrics.find((m) => m.name === n)?.value;
  const bad = line.metrics.find((m) => m.value === 'non-finite' && direction(m.name) !== undefined);
  if (bad !== undefined) return { diverged: detach(`${sourceName(source)} ${bad.name} is not finite`), position };
  const lossValue = value(line.name?.startsWith('val_') === true ? 'val_loss' : 'loss');
  const loss = typeof lossValue === 'number' ? { loss: lossValue } : {};
  if (carry.validation === true && !line.validation) return { position: { ...position, ...loss } };
  if (line.name === undefined) return undefined;
  const tracked = value(line.name);
  if (tracked === 'out-of-range') return { reason: 'out-of-range', detail: `${sourceName(source)} ${line.name} too large` };
  if (typeof tracked !== 'number') return undefined;
  const { step, epoch, epochs, time } = position;
  const sample: ProgressSample = {
    source,
    value: tracked,
    // Kept in the phase state for as long as the job runs.
    name: detach(line.name),
    higherIsBetter: direction(line.name)!,
    ...(step !== undefined ? { step } : {}),
    ...(epoch !== undefined ? { epoch } : {}),
    ...(epochs !== undefined ? { epochs } : {}),
    ...loss,
    ...(time !== undefined ? { time } : {}),
  };
  return { sample };
}

function sourceName(source: Exclude<SampleSource, 'protocol'>): string {
  return source === 'keras' ? 'Keras' : source === 'estimator' ? 'Estimator' : 'log line:';
}
