// A worker move planned in a pass: the workers leave their nodes and replacements come at `to`, one
// per worker; the job keeps its size. No policy moves workers today; kept with the operator's
// handling of `ScaleIn.relocated` for migration (docs/decisions/0007-relocate-converged.md).
import { toInstance } from '../model/admission.ts';
import { addWorkers, removeWorkers, type LiveReplica, type RunningJob } from '../model/job-model.ts';
import type { PassSession } from './session.ts';

/** Records the move as a relocated scale-in (for `forKey`) plus its scale-out; the state already holds it. */
export function recordMove(
  session: PassSession,
  job: RunningJob,
  removed: readonly LiveReplica[],
  to: readonly number[],
  forKey: string,
): void {
  session.recordScaleIn(job, removed, forKey, { relocated: true });
  removeWorkers(job, removed);
  // Not `session.grow`: the job holds as much as before, so its queue is charged nothing.
  const added = addWorkers(job, job.job.workers!.type, to, session.now);
  session.plan.addWorkers(
    job.job.key,
    added.map((w) => toInstance(session.state, w)),
  );
}
