// Parsing and defaulting raw test jobs, the way the reconciler does.

import { applyDefaults } from '../../../../src/api/v1/defaults.ts';
import type { DefaultedTFJob } from '../../../../src/api/v1/defaults.ts';
import { parseTFJob } from '../../../../src/api/v1/parse.ts';
import type { TFJob } from '../../../../src/api/v1/schema.ts';
import type { JobView } from '../../../../src/reconciler/tfjob/job-view.ts';
import { buildJobView } from '../../../../src/reconciler/tfjob/job-view.ts';

export function parsed(raw: unknown): TFJob {
  const result = parseTFJob(raw);
  if (!result.ok) throw new Error(result.message);
  return result.job;
}

export function defaulted(raw: unknown): DefaultedTFJob {
  return applyDefaults(parsed(raw));
}

export function viewOf(raw: unknown, options: { clusterDomain?: string; workers?: number } = {}): JobView {
  const job = parsed(raw);
  return buildJobView(job, applyDefaults(job), options);
}
