// The progress protocol (docs/progress-protocol.md): one log line = PROGRESS_PREFIX + one JSON object.
// This module owns the format of a single structured line and the limits every progress value obeys;
// parse.ts scans a whole log chunk, keras.ts recognises Keras's own output.

/** Marks a structured progress line. It may follow other text on the line (e.g. a logging prefix). */
export const PROGRESS_PREFIX = 'TFJOB_PROGRESS';
/** The only protocol version so far; a line without `v` is version 1. */
export const PROTOCOL_VERSION = 1;
/** Longest line (in UTF-16 code units) that is examined at all: bounds the work a hostile log can cause. */
export const MAX_LINE_LENGTH = 4096;
/** Largest magnitude accepted for metric, loss and target: beyond it a value is a bug, not a measurement. */
export const MAX_ABS_VALUE = 1e15;
/** Largest epoch accepted. */
export const MAX_EPOCH = 1e9;
/** Latest `time` accepted (seconds since the Unix epoch): 9999-12-31T23:59:59Z. */
export const MAX_TIME_SECONDS = 253_402_300_799;
/** Metric names end up in status and events: short, and only characters that need no escaping. */
export const METRIC_NAME_PATTERN = /^[A-Za-z0-9_.:/-]{1,64}$/;

/** Why a line (or part of a chunk) was ignored. Counted per chunk, never thrown. */
export type RejectReason =
  | 'malformed' // not one JSON object after the prefix
  | 'invalid-field' // a field has the wrong type, or a required one is missing
  | 'non-finite' // NaN or ±Infinity (including numbers too large for a double)
  | 'out-of-range' // finite but outside the documented bounds
  | 'oversized' // the line is longer than MAX_LINE_LENGTH
  | 'unsupported-version' // `v` is not a version this parser knows
  | 'excess'; // a valid sample dropped because the chunk held more than the per-chunk bound

/** Where a progress report came from: a structured line, or a format a training library prints. */
export type SampleSource = 'protocol' | 'keras' | 'estimator' | 'log';

/** One progress report, from either a structured line or a library's own output. */
export interface ProgressSample {
  readonly source: SampleSource;
  /** Global training step (batches seen), if known. */
  readonly step?: number;
  readonly epoch?: number;
  /** Epochs the job plans (N of Keras's `Epoch k/N`, or the protocol's `epochs`), if it said. */
  readonly epochs?: number;
  /** Global step at which the job plans to stop (the protocol's `totalSteps`), if it said. */
  readonly totalSteps?: number;
  /** The value the phase machine tracks: the reported metric, or the loss when no metric was given. */
  readonly value: number;
  readonly name: string;
  readonly higherIsBetter: boolean;
  readonly loss?: number;
  /** Value of `value` at which the job considers itself done, in the same unit. */
  readonly target?: number;
  /** When the value was measured, ms since the Unix epoch (from the line, else the log's own timestamp). */
  readonly time?: number;
}

/**
 * How far a job is without a value of its tracked metric: an epoch end without validation values
 * after validation was seen (validation_freq > 1), or the line that made the job diverge.
 */
export interface ProgressPosition {
  readonly step?: number;
  readonly epoch?: number;
  readonly epochs?: number;
  readonly totalSteps?: number;
  readonly loss?: number;
  readonly time?: number;
}

type Rejected = { readonly reason: RejectReason; readonly detail: string };
export type LineOutcome = { readonly sample: ProgressSample } | Rejected;

const reject = (reason: RejectReason, detail: string): Rejected => ({ reason, detail });

/** A finite number within ±MAX_ABS_VALUE, or the reason it is not one; undefined when absent. */
function boundedNumber(raw: unknown, field: string): number | LineOutcome | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'number') return reject('invalid-field', `${field} is not a number`);
  if (!Number.isFinite(raw)) return reject('non-finite', `${field} is not finite`);
  if (Math.abs(raw) > MAX_ABS_VALUE) return reject('out-of-range', `${field} exceeds ${MAX_ABS_VALUE}`);
  return raw;
}

/** A positive integer up to `max`, or the reason it is not one; undefined when absent. */
function positiveInteger(raw: unknown, field: string, max: number): number | Rejected | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'number') return reject('invalid-field', `${field} is not a number`);
  if (!Number.isFinite(raw)) return reject('non-finite', `${field} is not finite`);
  if (!Number.isInteger(raw) || raw < 1 || raw > max) return reject('out-of-range', `${field} is not an integer in [1, ${max}]`);
  return raw;
}

/** The job's own plan (`epochs`, `totalSteps`): how far it means to train, an upper bound it may stop before. */
function declaredPlan(epochs: unknown, totalSteps: unknown): { epochs?: number; totalSteps?: number } | Rejected {
  const e = positiveInteger(epochs, 'epochs', MAX_EPOCH);
  if (typeof e === 'object') return e;
  const t = positiveInteger(totalSteps, 'totalSteps', Number.MAX_SAFE_INTEGER);
  if (typeof t === 'object') return t;
  return { ...(e !== undefined ? { epochs: e } : {}), ...(t !== undefined ? { totalSteps: t } : {}) };
}

/** JSON has no NaN or Infinity; Python's json.dumps writes them anyway. Name the real problem. */
const NON_FINITE_TOKEN = /(?:^|[:,[\s])-?(?:NaN|Infinity)\s*[,}\]]/;

/**
 * Interprets the text after PROGRESS_PREFIX on one line. `logTime` is the log's own timestamp for the
 * line (kubelet `timestamps=true`), used when the object carries no `time`.
 */
export function parseProtocolPayload(payload: string, logTime: number | undefined): LineOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    if (NON_FINITE_TOKEN.test(payload)) return reject('non-finite', 'NaN or Infinity in the JSON object');
    return reject('malformed', 'not a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return reject('malformed', 'not a JSON object');
  const o = parsed as Record<string, unknown>;
  const field = (k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

  const v = field('v');
  if (v !== undefined && v !== PROTOCOL_VERSION) return reject('unsupported-version', `v=${JSON.stringify(v)}`);

  const step = field('step');
  if (step === undefined) return reject('invalid-field', 'step is missing');
  if (typeof step !== 'number') return reject('invalid-field', 'step is not a number');
  if (!Number.isFinite(step)) return reject('non-finite', 'step is not finite');
  if (!Number.isSafeInteger(step) || step < 0) return reject('out-of-range', 'step is not a non-negative integer');

  const epoch = field('epoch');
  if (epoch !== undefined) {
    if (typeof epoch !== 'number') return reject('invalid-field', 'epoch is not a number');
    if (!Number.isFinite(epoch)) return reject('non-finite', 'epoch is not finite');
    if (epoch < 0 || epoch > MAX_EPOCH) return reject('out-of-range', `epoch is outside [0, ${MAX_EPOCH}]`);
  }

  const plan = declaredPlan(field('epochs'), field('totalSteps'));
  if ('reason' in plan) return plan;

  const metric = boundedNumber(field('metric'), 'metric');
  if (typeof metric === 'object') return metric;
  const loss = boundedNumber(field('loss'), 'loss');
  if (typeof loss === 'object') return loss;
  const target = boundedNumber(field('target'), 'target');
  if (typeof target === 'object') return target;
  if (metric === undefined && loss === undefined) return reject('invalid-field', 'neither metric nor loss is given');

  const rawName = field('name');
  if (rawName !== undefined && (typeof rawName !== 'string' || !METRIC_NAME_PATTERN.test(rawName))) {
    return reject('invalid-field', `name must match ${METRIC_NAME_PATTERN.source}`);
  }
  const hib = field('higherIsBetter');
  if (hib !== undefined && typeof hib !== 'boolean') return reject('invalid-field', 'higherIsBetter is not a boolean');
  // The direction of a metric cannot be guessed from its name: the writer must say it.
  if (metric !== undefined && hib === undefined) return reject('invalid-field', 'higherIsBetter is required with metric');

  const rawTime = field('time');
  let time = logTime;
  if (rawTime !== undefined) {
    if (typeof rawTime !== 'number') return reject('invalid-field', 'time is not a number');
    if (!Number.isFinite(rawTime)) return reject('non-finite', 'time is not finite');
    if (rawTime <= 0 || rawTime > MAX_TIME_SECONDS) return reject('out-of-range', 'time is not seconds since the Unix epoch');
    time = Math.round(rawTime * 1000);
  }

  const sample: ProgressSample =
    metric !== undefined
      ? { source: 'protocol', step, value: metric, name: rawName ?? 'metric', higherIsBetter: hib === true }
      : // Only a loss: it is the tracked value, and a loss is lower-is-better by definition.
        { source: 'protocol', step, value: loss!, name: 'loss', higherIsBetter: false };
  return {
    sample: {
      ...sample,
      ...(epoch !== undefined ? { epoch } : {}),
      ...plan,
      ...(loss !== undefined ? { loss } : {}),
      ...(target !== undefined ? { target } : {}),
      ...(time !== undefined ? { time } : {}),
    },
  };
}
