// Progress in lines other libraries and hand-written loops print: tf.estimator's INFO lines and
// logging lines with `name=value` or `name: value` metrics (absl, Python logging, print). Only the
// last redraw of a line reaches here, control characters removed; Keras's own format is keras.ts.

import { direction, readMetric, textOutcome, type MetricLine, type TextCarry, type TextOutcome } from './metrics-text.ts';
import type { ProgressPosition } from './protocol.ts';

export interface LogLineCarry extends TextCarry {
  /** The last `Epoch k/N` (or `epoch k`) a logging line named. */
  readonly epoch?: number;
  readonly epochs?: number;
}

type Outcome = { readonly carry: LogLineCarry; readonly outcome?: TextOutcome };

// `INFO:tensorflow:Saving dict for global step 50: accuracy = 0.41, global_step = 50, loss = 1.28`
const ESTIMATOR_EVAL = /\bSaving dict for global step (\d{1,15}): (.*)$/;
// `INFO:tensorflow:loss = 1.607104, step = 0 (0.412 sec)`
const ESTIMATOR_TRAIN = /\bloss = (\S+), step = (\d{1,15})\b/;
const ESTIMATOR_PAIR = /(?:^|, )([A-Za-z][\w/]{0,63}) = (\S+?)(?=,|$)/g;

// A metric as `name=value` or `name: value`, standing alone: after a space, comma or bracket (not in a
// path `/loss=0.5/` or a JSON key `"loss":`) and before one (not `loss=0.5.ckpt`).
const PAIR =
  /(?:^|[\s,;([{|])([A-Za-z][\w]{0,63})\s?[=:]\s?([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity))(?=$|[\s,;)\]}|])/gi;
const EPOCH_OF = /\bEpoch (\d{1,9})\/(\d{1,9})\b/;
const EPOCH = /\bepoch[\s=:#]\s?(\d{1,9})\b/i;
const STEP = /\b(?:global_)?step[\s=:#]\s?(\d{1,15})\b/i;
// tqdm's bar (`45%|████▌  | 45/100 [00:01<00:02, 30.1it/s, loss=0.5]`): a running value mid-epoch.
const TQDM = /\d%\||\d\s?(?:it\/s|s\/it)\b/;

/** A recognised Estimator or logging line, or no outcome (the line is not one of these formats). */
export function parseLogLine(line: string, carry: LogLineCarry, logTime: number | undefined): Outcome {
  return estimatorLine(line, carry, logTime) ?? keyValueLine(line, carry, logTime) ?? { carry };
}

function estimatorLine(line: string, carry: LogLineCarry, logTime: number | undefined): Outcome | undefined {
  const time = logTime !== undefined ? { time: logTime } : {};
  const evaluation = ESTIMATOR_EVAL.exec(line);
  if (evaluation) {
    const entries = new Map<string, string>();
    for (const m of evaluation[2]!.matchAll(ESTIMATOR_PAIR)) if (m[1] !== 'global_step') entries.set(m[1]!, m[2]!);
    const outcome = textOutcome('estimator', metricLine(entries, true), carry, { step: Number(evaluation[1]), ...time });
    return { carry: { ...carry, validation: true }, ...(outcome ? { outcome } : {}) };
  }
  const train = ESTIMATOR_TRAIN.exec(line);
  if (!train) return undefined;
  const outcome = textOutcome('estimator', metricLine(new Map([['loss', train[1]!]]), false), carry, { step: Number(train[2]), ...time });
  return { carry, ...(outcome ? { outcome } : {}) };
}

function keyValueLine(line: string, carry: LogLineCarry, logTime: number | undefined): Outcome | undefined {
  if (TQDM.test(line)) return undefined;
  const entries = new Map<string, string>();
  for (const m of line.matchAll(PAIR)) {
    if (direction(m[1]!) !== undefined && !entries.has(m[1]!)) entries.set(m[1]!, m[2]!);
  }
  if (entries.size === 0) return undefined;
  const of = EPOCH_OF.exec(line);
  const epoch = of ? Number(of[1]) : Number(EPOCH.exec(line)?.[1] ?? Number.NaN);
  const step = Number(STEP.exec(line)?.[1] ?? Number.NaN);
  // One name=value alone is too weak a sign (an error message, a config dump): a metric line says where
  // the job is, or prints several metrics.
  if (Number.isNaN(epoch) && Number.isNaN(step) && entries.size < 2) return undefined;
  const next: LogLineCarry = {
    ...carry,
    ...(Number.isNaN(epoch) ? {} : { epoch }),
    ...(of ? { epochs: Number(of[2]) } : {}),
  };
  const position: ProgressPosition = {
    ...(Number.isNaN(step) ? {} : { step }),
    ...(next.epoch !== undefined ? { epoch: next.epoch } : {}),
    ...(next.epochs !== undefined ? { epochs: next.epochs } : {}),
    ...(logTime !== undefined ? { time: logTime } : {}),
  };
  const line_ = metricLine(entries, [...entries.keys()].some(isValidation));
  const outcome = textOutcome('log', line_, carry, position);
  return { carry: line_.validation ? { ...next, validation: true } : next, ...(outcome ? { outcome } : {}) };
}

const isValidation = (name: string): boolean => /^(?:val|eval|validation)_/.test(name);

function metricLine(entries: ReadonlyMap<string, string>, validation: boolean): MetricLine {
  const metrics = [...entries].map(([name, text]) => ({ name, value: readMetric(text) }));
  return { name: chooseForLog(entries, validation), metrics, validation };
}

/** Like chooseTracked, with eval_/validation_ prefixes counting as validation too. */
function chooseForLog(entries: ReadonlyMap<string, string>, validation: boolean): string | undefined {
  const names = [...entries.keys()].filter((n) => direction(n) !== undefined);
  const loss = (n: string): boolean => direction(n) === false;
  const val = (n: string): boolean => validation && (isValidation(n) || !names.some(isValidation));
  return names.find((n) => val(n) && !loss(n)) ?? names.find(val) ?? names.find((n) => !loss(n)) ?? names[0];
}
