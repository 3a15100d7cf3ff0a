// Turning an untyped object from the API (informer cache, fixture) into a typed TFJob.

import type { z } from 'zod';
import { formatFieldPath } from './field-path.ts';
import { TFJobSchema } from './schema.ts';
import type { TFJob } from './schema.ts';

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
