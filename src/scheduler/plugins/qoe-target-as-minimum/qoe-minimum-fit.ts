// `qoeTargetAsMinimum` (qoe-minimum.ts) raises a throughput target's minimum for the pass; a waiting job
// whose raised minimum would not fit even the empty cluster could then never be admitted, so the pass
// is compiled again with its declared minimum. Apart from qoe-minimum.ts because the pass model
// (job-model.ts) uses that one.

import type { PassModel } from '../../model/job-model.ts';
import { findPlacement, minimumItems, minimumKey } from '../../model/placement.ts';

/** Keys of the waiting jobs of `model` whose minimum was raised and does not fit its empty cluster. */
export function raisedMinimaThatNeverFit(model: PassModel): string[] {
  const out: string[] = [];
  for (const job of model.waiting) {
    const declared = job.state.spec.workers?.min ?? 0;
    if (job.workers === undefined || job.workers.min <= declared) continue;
    if (!findPlacement(model.emptyCluster(), minimumItems(job), minimumKey(job)).ok) out.push(job.key);
  }
  return out;
}
