// Turning an untyped object from the API (informer cache, fixture) into a typed TFJob.

import type { z } from 'zod';
import { applyDefaults, type DefaultedTFJob } from './defaults.ts';
import type { FieldError } from './field-error.ts';
import { formatFieldPath } from './field-path.ts';
import type { ObjectMeta } from './k8s-types.ts';
import { JobStatusSchema, TFJobSchema } from './schema.ts';
import type { JobStatus, TFJob } from './schema.ts';
import { validateTFJob } from './validation.ts';

export type ParseResult = { readonly ok: true; readonly job: TFJob } | { readonly ok: false; readonly message: string };

/** One line per problem, each starting with the field it concerns, e.g. `spec.tfReplicaSpecs[Worker].replicas: expected int32`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${formatFieldPath(issue.path)}: ${issueText(issue)}`).join('; ');
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const format = 'format' in issue && typeof issue.format === 'string' ? issue.format : undefined;
    if (issue.input === undefined) return 'Required value';
    return `expected ${format ?? issue.expected}`;
  }
  return issue.message;
}

export function parseTFJob(raw: unknown): ParseResult {
  // reportInput: issues then carry the offending value, which tells "missing" from "wrong type".
  const result = TFJobSchema.safeParse(raw, { reportInput: true });
  if (result.success) return { ok: true, job: result.data };
  return { ok: false, message: describeIssues(result.error.issues) };
}

/**
 * A TFJob as the operator's cache holds it: parsed, validated and defaulted once, when the object
 * enters the cache (the informer's transform), so that the controller and the scheduling loop read
 * it typed instead of parsing it again. A job that does not parse stays visible (the controller
 * marks it Failed with the field that is wrong), as the error and what little of it is needed.
 */
export type TFJobEntry = ParsedTFJobEntry | UnparsableTFJobEntry;

interface TFJobEntryHead {
  readonly apiVersion?: string;
  readonly kind?: string;
  /** The status as stored (parsed; `{}` when absent or malformed in an unparsable job). */
  readonly status?: JobStatus;
}

export interface ParsedTFJobEntry extends TFJobEntryHead {
  readonly ok: true;
  /** The same object as `job.metadata`, typed for the store and event recorder. */
  readonly metadata: ObjectMeta;
  readonly job: TFJob;
  /** `applyDefaults(job)`; shares the pod templates with `job` (neither is ever mutated). */
  readonly defaulted: DefaultedTFJob;
  /** Validation problems (validation.ts), webhook checks first; empty when the job may run. */
  readonly errors: readonly FieldError[];
}

export interface UnparsableTFJobEntry extends TFJobEntryHead {
  readonly ok: false;
  readonly metadata?: ObjectMeta;
  /** `parseTFJob`'s message: each problem with the field it concerns. */
  readonly message: string;
  readonly status: JobStatus;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Freezes `value` and everything it reaches: a cached job is shared by every reader, never mutated. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Parses, validates and defaults `raw` (an object from the API, already stripped for the cache). */
export function toTFJobEntry(raw: unknown): TFJobEntry {
  const parsed = parseTFJob(raw);
  if (parsed.ok) {
    const job = deepFreeze(parsed.job);
    return {
      ok: true,
      ...(job.apiVersion === undefined ? {} : { apiVersion: job.apiVersion }),
      ...(job.kind === undefined ? {} : { kind: job.kind }),
      // zod's ObjectMeta admits string timestamps where client-node's type says Date; both are JSON here.
      metadata: job.metadata as unknown as ObjectMeta,
      ...(job.status === undefined ? {} : { status: job.status }),
      job,
      defaulted: deepFreeze(applyDefaults(job)),
      errors: validateTFJob(job),
    };
  }
  const head = isRecord(raw) ? raw : {};
  const status = JobStatusSchema.safeParse(head.status ?? {});
  return {
    ok: false,
    ...(typeof head.apiVersion === 'string' ? { apiVersion: head.apiVersion } : {}),
    ...(typeof head.kind === 'string' ? { kind: head.kind } : {}),
    ...(isRecord(head.metadata) ? { metadata: head.metadata } : {}),
    message: parsed.message,
    status: status.success ? status.data : {},
  };
}
