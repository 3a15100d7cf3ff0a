// Growth of running jobs with the policy's growth rules (Scale-Out, Alg. 3, in the queues' rounds),
// and who may not grow while a job starves. Used by the actions that add workers.

import type { CompiledJob, RunningJob } from '../model/job-model.ts';
import { byRankDescending } from '../queues/queues.ts';
import { scaleOut, type ScaleOutOptions } from '../model/scale-out.ts';
import { compareRank } from '../ranking/weight.ts';
import type { PassSession } from './session.ts';

export interface GrowOptions {
  /** Whether the scaling knee (and `capWhileWaiting`) applies: someone waits who could use the room. */
  readonly knee: boolean;
  readonly skipJobsScaledInThisPass: boolean;
  /** A further cap on a job's size, given the capped one. */
  readonly limitFor?: ScaleOutOptions['limitFor'];
  /** Nodes no worker may be added to. */
  readonly reserved?: Uint8Array | undefined;
}

/** Whether the policy keeps `job` at its size this pass. */
export function holdsSize(session: PassSession, job: RunningJob): boolean {
  return session.policy.growth.holds.some((holds) => holds(job));
}

/** Scale-out of the running jobs, highest rank first, in each of the queues' growth rounds. */
export function growRunning(session: PassSession, opts: GrowOptions): void {
  const { gate, model, now, state } = session;
  const rules = session.policy.growth;
  const cap = opts.knee ? rules.capWhileWaiting : undefined;
  const onGrow = session.grow.bind(session);
  for (const round of gate.growthRounds()) {
    const jobs = round.order(byRankDescending(model.running));
    const scaleOutOptions: ScaleOutOptions = {
      psNodesFirst: rules.psNodesFirst,
      packNodes: rules.packNodes,
      kneeMinMarginalGain: session.kneeGain(opts.knee),
      skipJobsScaledInThisPass: opts.skipJobsScaledInThisPass,
      limitFor: (job, limit) => {
        if (holdsSize(session, job)) return job.workers.length;
        const capped = cap === undefined ? limit : cap(job, limit, now);
        return round.limitFor(job, opts.limitFor === undefined ? capped : opts.limitFor(job, capped));
      },
      ...(opts.reserved === undefined ? {} : { reserved: opts.reserved }),
    };
    scaleOut(state, jobs, now, scaleOutOptions, onGrow);
  }
}

/**
 * Running jobs that may not grow while `waiting` jobs starve: a starving job preempts regardless of
 * the cool-down, so a worker given to a job it outranks would be taken back next pass (thrash).
 * Undefined when nobody starves.
 */
export function keptForStarving(waiting: readonly CompiledJob[]): ((r: RunningJob) => boolean) | undefined {
  // "Some starving job of its class or above outranks it" is "the top starving one does": waiting
  // jobs are in rank order, and a higher class always ranks higher.
  const top = waiting.find((j) => j.starving);
  return top === undefined ? undefined : (r) => compareRank(r.job, top) > 0;
}
