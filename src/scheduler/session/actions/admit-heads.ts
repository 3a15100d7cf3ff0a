// Algorithm 1 lines 5–30, once per line of waiting jobs (without queues the whole waiting queue is
// one line; with queues each queue is its own, as ranks compete and preempt only within a queue):
//
//   head = the highest-ranked waiting job that could fit an empty cluster            (lines 5, 19)
//   if head outranks every running job of its class or below (priority, then weight):   (line 5)
//       place its minimum configuration (§4.1), else Scale-In (Alg. 2) and place it     (6–16)
//   else: every waiting job by rank, admitted if it fits, no preemption                (18–26)
//
// A starving head that cannot be admitted holds a reservation: the line admits nothing else, or
// with `backfill` only off the nodes its minimum takes on an empty cluster. Jobs that can never
// fit are never the head: one impossible job would otherwise stop line 5 for everyone, forever.

import type { CompiledJob } from '../../model/job-model.ts';
import { queueKey } from '../../queues/queue-gate.ts';
import { outranksRunning } from '../../queues/queues.ts';
import { admitByPreemption } from '../preempt.ts';
import type { Action, HeadFallback, PassSession } from '../session.ts';
import { admitFitting } from './admit-fitting.ts';

export interface AdmitHeadsOptions {
  /** `admitUntilBlocked`: the next head is tried while heads are admitted (the paper admits one per pass). */
  readonly untilBlocked: boolean;
  /** `backfillWhenHeadBlocked`: behind a blocked head, others that fit without preemption are admitted. */
  readonly backfill: boolean;
  /** `suspendForBackfill` (admit-fitting.ts). */
  readonly suspendForOne?: HeadFallback | undefined;
}

/** The line's next job that is neither admitted nor settled, from `cursor` on; settles those that never fit or are inadmissible. */
function nextHead(session: PassSession, line: readonly CompiledJob[], cursor: number): { head: CompiledJob | undefined; cursor: number } {
  for (; cursor < line.length; cursor++) {
    const job = line[cursor]!;
    if (session.isSettled(job) || session.settleIfNeverFits(job) || session.blocked(job, true)) continue;
    return { head: job, cursor };
  }
  return { head: undefined, cursor };
}

/** Lines 6–16 for `head`; true if admitted. */
function admitHead(session: PassSession, head: CompiledJob, opts: AdmitHeadsOptions): boolean {
  // Over its queue's quota, the head may still make room within its queue by preemption.
  const overQuota = session.gate.blockOf(head);
  const failure = overQuota === undefined ? session.admitDirect(head) : session.probe(head);
  if (overQuota === undefined && failure === undefined) return true;
  // A starving head that others backfill around is also tried on its reserved nodes alone: once
  // they have drained, that is where it is sure to fit (the bound relies on it).
  if (overQuota === undefined && head.starving && opts.backfill && session.admitDirect(head, session.reservedNodesOf(head)) === undefined) {
    return true;
  }
  return admitByPreemption(session, head, failure, overQuota);
}

/** After `head` of `line` could not be admitted: its reservation if starving, and backfill. */
function headBlocked(
  session: PassSession,
  lineKey: string,
  line: readonly CompiledJob[],
  head: CompiledJob,
  opts: AdmitHeadsOptions,
): void {
  const fitting = { backfill: true, suspendForOne: opts.suspendForOne };
  if (!head.starving) {
    if (opts.backfill) admitFitting(session, line, fitting);
    return;
  }
  session.lastHeads.set(lineKey, { head, reservation: true });
  if (!opts.backfill) return;
  const mine = session.reservedNodesOf(head);
  const reserved = session.reserved;
  session.reserved = reserved === undefined ? mine : reserved.map((x, i) => x | mine[i]!);
  admitFitting(session, line, { ...fitting, around: { head, reserved: mine } });
}

function admitLine(session: PassSession, lineKey: string, line: readonly CompiledJob[], opts: AdmitHeadsOptions): void {
  // Jobs before `cursor` are admitted or settled; that set only grows.
  let cursor = 0;
  for (;;) {
    const next = nextHead(session, line, cursor);
    const head = next.head;
    cursor = next.cursor;
    if (head === undefined) return;
    session.lastHeads.set(lineKey, { head, reservation: false });
    if (!outranksRunning(head, session.runningMax(head))) {
      admitFitting(session, line, { backfill: false, suspendForOne: opts.suspendForOne });
      return;
    }
    if (!admitHead(session, head, opts)) {
      headBlocked(session, lineKey, line, head, opts);
      return;
    }
    if (!opts.untilBlocked) return;
  }
}

export function admitHeads(opts: AdmitHeadsOptions): Action {
  return {
    name: 'admit-heads',
    options: opts,
    run(session) {
      const lines = new Map<string, CompiledJob[]>();
      for (const job of session.waitingOrder) {
        const line = lines.get(queueKey(job));
        if (line === undefined) lines.set(queueKey(job), [job]);
        else line.push(job);
      }
      for (const [lineKey, line] of lines) admitLine(session, lineKey, line, opts);
    },
  };
}
