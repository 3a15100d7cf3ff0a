// `spec.qoe`, a TFJob's performance target (DQoES; docs/tfjob-extensions.md): its limits, its
// validation (the same rules our CRD enforces at admission as OpenAPI bounds and CEL), and the
// target it resolves to. Exactly one of stepsPerSecond, secondsPerStep, deadline, deadlineSeconds.

import type { FieldError } from './field-error.ts';
import { forbidden, invalid, notSupported, required } from './field-error.ts';
import type { QoeSpec, TFJob } from './schema.ts';

/** Defaults: DQoES's α and β (its evaluation used 10% for both). */
export const DEFAULT_QOE_TOLERANCE = 0.1;
export const DEFAULT_QOE_ADJUST_STEP = 0.1;
/** Beyond these a target is a typo, not a wish: no TensorFlow job runs a million steps per second, or a day per step. */
export const MAX_STEPS_PER_SECOND = 1e6;
export const MAX_SECONDS_PER_STEP = 86_400;
/** A deadline further than ten years away says nothing a scheduler can act on. */
export const MAX_DEADLINE_SECONDS = 10 * 365 * 86_400;
export const MAX_TOTAL_STEPS = 1e15;

/** The rate targets: at most one of them. */
export const QOE_TARGET_FIELDS = ['stepsPerSecond', 'secondsPerStep', 'deadline', 'deadlineSeconds'] as const;
export const MSG_QOE_ONE_TARGET = `must set at most one of ${QOE_TARGET_FIELDS.join(', ')}`;
export const MSG_QOE_SOME_TARGET = `must set one of ${QOE_TARGET_FIELDS.join(', ')}, or targetMetric`;
export const MSG_QOE_ON_TARGET_METRIC = 'is only used with targetMetric';
export const ON_TARGET_METRIC = ['Shrink', 'Stop'] as const;
export type OnTargetMetric = (typeof ON_TARGET_METRIC)[number];
/** As the progress protocol's bound on any metric (progress/protocol.ts MAX_ABS_VALUE). */
export const MAX_ABS_TARGET_METRIC = 1e15;
export const MSG_QOE_TOTAL_STEPS = 'is required with a deadline (progress is measured against it)';
export const MSG_QOE_TOTAL_STEPS_FORBIDDEN = 'is only used with a deadline';

/** What the scheduling core needs (structurally its `QoeTarget`). */
export interface ResolvedQoe {
  readonly stepsPerSecond?: number;
  readonly deadline?: { readonly at: number; readonly totalSteps: number };
  readonly tolerance: number;
  readonly adjustStep: number;
  /** The metric value the job is done at, and what then: shrink to its minimum, or stop (Succeeded). */
  readonly metric?: { readonly value: number; readonly onReached: OnTargetMetric };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function inOpenRange(field: string, value: number | undefined, lo: number, hi: number, hiInclusive: boolean): FieldError[] {
  if (value === undefined) return [];
  const ok = Number.isFinite(value) && value > lo && (hiInclusive ? value <= hi : value < hi);
  return ok ? [] : [invalid(field, value, `must be greater than ${lo} and ${hiInclusive ? 'at most' : 'less than'} ${hi}`)];
}

export function validateQoe(job: TFJob): FieldError[] {
  const q = job.spec?.qoe;
  if (q === undefined) return [];
  const base = 'spec.qoe';
  const errors: FieldError[] = [];
  const set = QOE_TARGET_FIELDS.filter((f) => q[f] !== undefined);
  if (set.length > 1) errors.push(invalid(base, `${set.length} targets`, MSG_QOE_ONE_TARGET));
  if (set.length === 0 && q.targetMetric === undefined) errors.push(invalid(base, 'no target', MSG_QOE_SOME_TARGET));
  if (q.targetMetric !== undefined && !(Number.isFinite(q.targetMetric) && Math.abs(q.targetMetric) <= MAX_ABS_TARGET_METRIC)) {
    errors.push(invalid(`${base}.targetMetric`, q.targetMetric, `must be a number within ±${MAX_ABS_TARGET_METRIC}`));
  }
  if (q.onTargetMetric !== undefined) {
    if (!(ON_TARGET_METRIC as readonly string[]).includes(q.onTargetMetric)) {
      errors.push(notSupported(`${base}.onTargetMetric`, q.onTargetMetric, ON_TARGET_METRIC));
    } else if (q.targetMetric === undefined) errors.push(forbidden(`${base}.onTargetMetric`, MSG_QOE_ON_TARGET_METRIC));
  }
  errors.push(...inOpenRange(`${base}.stepsPerSecond`, q.stepsPerSecond, 0, MAX_STEPS_PER_SECOND, true));
  errors.push(...inOpenRange(`${base}.secondsPerStep`, q.secondsPerStep, 0, MAX_SECONDS_PER_STEP, true));
  if (q.deadline !== undefined && (!RFC3339.test(q.deadline) || !Number.isFinite(Date.parse(q.deadline)))) {
    errors.push(invalid(`${base}.deadline`, q.deadline, 'must be an RFC 3339 date-time, e.g. 2026-11-25T18:00:00Z'));
  }
  errors.push(...inOpenRange(`${base}.deadlineSeconds`, q.deadlineSeconds, 0, MAX_DEADLINE_SECONDS, true));
  const deadline = q.deadline !== undefined || q.deadlineSeconds !== undefined;
  if (deadline && q.totalSteps === undefined) errors.push(required(`${base}.totalSteps`, MSG_QOE_TOTAL_STEPS));
  if (!deadline && q.totalSteps !== undefined) errors.push(forbidden(`${base}.totalSteps`, MSG_QOE_TOTAL_STEPS_FORBIDDEN));
  errors.push(...inOpenRange(`${base}.totalSteps`, q.totalSteps, 0, MAX_TOTAL_STEPS, true));
  errors.push(...inOpenRange(`${base}.tolerance`, q.tolerance, 0, 1, false));
  errors.push(...inOpenRange(`${base}.adjustStep`, q.adjustStep, 0, 1, true));
  return errors;
}

/**
 * The target of a valid `spec.qoe` (undefined without one). `createdAt` (ms) anchors
 * `deadlineSeconds`. A deadline already past is kept: the job runs, and its status says so.
 */
export function resolveQoe(q: QoeSpec | undefined, createdAt: number): ResolvedQoe | undefined {
  if (q === undefined) return undefined;
  const common = {
    tolerance: q.tolerance ?? DEFAULT_QOE_TOLERANCE,
    adjustStep: q.adjustStep ?? DEFAULT_QOE_ADJUST_STEP,
    ...(q.targetMetric === undefined ? {} : { metric: { value: q.targetMetric, onReached: onTargetMetric(q) } }),
  };
  if (q.stepsPerSecond !== undefined) return { ...common, stepsPerSecond: q.stepsPerSecond };
  if (q.secondsPerStep !== undefined) return { ...common, stepsPerSecond: 1 / q.secondsPerStep };
  const at =
    q.deadline !== undefined ? Date.parse(q.deadline) : q.deadlineSeconds !== undefined ? createdAt + q.deadlineSeconds * 1000 : undefined;
  if (at !== undefined && q.totalSteps !== undefined) return { ...common, deadline: { at, totalSteps: q.totalSteps } };
  return common.metric === undefined ? undefined : common;
}

/** What to do once the metric target is reached (Shrink unless the user chose Stop). */
export function onTargetMetric(q: QoeSpec): OnTargetMetric {
  return q.onTargetMetric === 'Stop' ? 'Stop' : 'Shrink';
}

/** The target in words, for `status.qoe.target` and events. */
export function describeQoeTarget(q: QoeSpec, resolved: ResolvedQoe): string {
  const parts: string[] = [];
  if (q.stepsPerSecond !== undefined) parts.push(`${q.stepsPerSecond} steps/s`);
  else if (q.secondsPerStep !== undefined) parts.push(`${q.secondsPerStep} s/step`);
  else if (resolved.deadline !== undefined) {
    parts.push(`${resolved.deadline.totalSteps} steps by ${new Date(resolved.deadline.at).toISOString().replace(/\.000Z$/, 'Z')}`);
  }
  if (q.targetMetric !== undefined) parts.push(`metric ${q.targetMetric}, then ${onTargetMetric(q)}`);
  return parts.join('; ');
}
