// The engine of the fixed-size, preemptive baselines (Tiresias and the clairvoyant oracles): every
// job runs as one gang at its maximum size (fixed replicas and `max` workers, never scaled), and one
// total order over all unfinished jobs, running or waiting, decides who holds the cluster. Walking
// that order, a waiting job is admitted where its gang fits; if it does not, running jobs ordered
// after it are suspended, last in the order first, until it fits (victims it turns out not to need
// are kept, as in suspend.ts); if even that does not make room it waits and the walk goes on, so a
// smaller job further down may still start (no head-of-line blocking, as in the Pollux artifact's
// Tiresias, which admits by count in queue order). Running jobs ordered before a job are never
// suspended for it, and a higher priority class is never suspended for a lower one (the order
// compares classes first). Placement is the §4.1 rule shared by every policy, so the baselines differ
// from the others in their order and their preemption, not in how pods are packed.
//
// Suspension returns a job to the queue with its progress (the simulator keeps its remaining work;
// a real job resumes from its checkpoint), as the artifact's baselines assume.

import { admitPlaced } from '../../../src/scheduler/model/admission.ts';
import { gangWaitingReasons, type WaitOutcome } from '../../../src/scheduler/model/explain.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import type { CompiledJob, RunningJob } from '../../../src/scheduler/model/job-model.ts';
import { commitPlacement, findPlacement, maximumItems } from '../../../src/scheduler/model/placement.ts';
import { PlanBuilder, sortedWeights } from '../../../src/scheduler/model/plan-builder.ts';
import { suspendFor } from '../../../src/scheduler/model/suspend.ts';
import type { SchedulerConfig } from '../../../src/scheduler/config.ts';
import type { ClusterSnapshot, Plan } from '../../../src/scheduler/types.ts';

/** Higher priority classes first, then `within`, then submission and key (a strict total order). */
export function classesFirst(within: (a: CompiledJob, b: CompiledJob) => number): (a: CompiledJob, b: CompiledJob) => number {
  return (a, b) => b.priority - a.priority || within(a, b) || a.submittedAt - b.submittedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** One pass of an ordered gang policy; `orderName` appears in waiting messages ("… in <orderName> order"). */
export function orderedGangPass(
  snapshot: ClusterSnapshot,
  config: SchedulerConfig,
  order: (a: CompiledJob, b: CompiledJob) => number,
  orderName: string,
): Plan {
  const model = buildPassModel(snapshot, config);
  const { state, now } = model;
  const plan = new PlanBuilder();
  const outcomes = new Map<string, WaitOutcome>();
  const all = [...model.jobs.values()].sort(order);
  const position = new Map(all.map((j, i) => [j.key, i]));
  const suspended = new Set<string>();
  // Running jobs at the start of the pass, last in the order first: the victims' order.
  const victimsInOrder: RunningJob[] = [...model.running].sort((a, b) => position.get(b.job.key)! - position.get(a.job.key)!);

  for (const job of all) {
    if (job.state.phase !== 'waiting') continue;
    const items = maximumItems(job);
    const ever = findPlacement(model.emptyCluster(), items, `${job.signature}#max`);
    if (!ever.ok) {
      outcomes.set(job.key, { kind: 'never-fits', failure: ever.failure, configuration: 'maximum', emptyCluster: model.emptyCluster() });
      continue;
    }
    const direct = findPlacement(state, items, `${job.signature}#max`);
    if (direct.ok) {
      commitPlacement(state, items, direct.placement);
      plan.admit(job.key, admitPlaced(model, job, items, direct.placement));
      continue;
    }
    const mine = position.get(job.key)!;
    const candidates = victimsInOrder.filter((r) => !suspended.has(r.job.key) && position.get(r.job.key)! > mine);
    const res = candidates.length === 0 ? undefined : suspendFor(state, job, candidates, now, 0, items);
    if (res === undefined || !res.ok) {
      outcomes.set(job.key, { kind: 'ordered-blocked', failure: direct.failure, order: orderName });
      continue;
    }
    for (const victim of res.victims) {
      suspended.add(victim.job.key);
      plan.suspend(victim.job.key, job.key);
    }
    plan.admit(job.key, admitPlaced(model, job, res.items, res.placement));
  }

  const waiting = gangWaitingReasons(all, outcomes, { state, now, starveLimitMs: config.starveLimitMs });
  return plan.build(waiting, sortedWeights([...model.jobs.values()].map((j) => [j.key, j.baseWeight] as const)));
}
