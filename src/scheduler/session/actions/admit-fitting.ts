// Algorithm 1 lines 18–26, and backfill behind a blocked head: every remaining waiting job of a line
// by rank, admitted if its minimum fits without preemption; around a starving head, only off the
// nodes reserved for it.

import type { CompiledJob } from '../../model/job-model.ts';
import type { HeadFallback, PassSession } from '../session.ts';

export interface AdmitFittingOptions {
  /** Backfill behind a blocked head (how the waiting reasons put it), not lines 18–26. */
  readonly backfill: boolean;
  /** A starving head and its reserved nodes, which are off limits. */
  readonly around?: { readonly head: CompiledJob; readonly reserved: Uint8Array };
  /**
   * `suspendForBackfill`: once per pass, the first job that does not fit, is not demoted, has waited
   * at least the scale-out cool-down (one that just arrived often gets room from the normal flow)
   * and is not confined off a reservation is tried with this (Tiresias lets any job of a higher
   * queue preempt). Once bounds the work in a large cluster.
   */
  readonly suspendForOne?: HeadFallback | undefined;
}

function mayTrySuspendFor(session: PassSession, job: CompiledJob, opts: AdmitFittingOptions): boolean {
  if (opts.suspendForOne === undefined || session.backfillSuspensionTried || opts.around !== undefined || job.served !== 0) return false;
  if (session.now - job.submittedAt < session.config.scaleOutCooldownMs) return false;
  session.backfillSuspensionTried = true;
  return true;
}

export function admitFitting(session: PassSession, line: readonly CompiledJob[], opts: AdmitFittingOptions): void {
  const { around } = opts;
  const allowed = around === undefined ? undefined : around.reserved.map((x) => 1 - x);
  for (const job of line) {
    if (session.isSettled(job) || session.settleIfNeverFits(job) || session.blocked(job)) continue;
    const failure = session.admitDirect(job, allowed);
    if (failure === undefined) continue;
    if (mayTrySuspendFor(session, job, opts) && opts.suspendForOne!(session, job)) continue;
    session.outcomes.set(job.key, {
      kind: 'no-room',
      failure,
      runningMax: session.runningMax(job),
      backfill: opts.backfill,
      reservedFor: around?.head.key,
    });
  }
}
