// `gang-fifo` baseline, Kueue/Volcano style (scheduling.md §7): a job is admitted only when all its
// pods at maximum size fit at once (fixed replicas and `max` workers, placed by the same §4.1 rule
// as KOD2); the queue is strict FIFO by arrival (t_j, then key) within a priority class, higher
// classes first, and a head that does not fit blocks everything behind it (Kueue's StrictFIFO).
// No preemption, no scaling, no aging (weights are reported, unused). A job whose gang cannot fit
// even an empty cluster is skipped rather than allowed to block the queue forever.
//
// With queues (queue-gate.ts) it is Kueue's StrictFIFO per queue: each queue's head blocks only its
// own queue, and a gang is admitted only if its queue's quota (borrowing included) takes all of it.

import { admitPlaced } from '../../../src/scheduler/model/admission.ts';
import { gangWaitingReasons, type WaitOutcome } from '../../../src/scheduler/model/explain.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import type { CompiledJob } from '../../../src/scheduler/model/job-model.ts';
import { sortedWeights, PlanBuilder } from '../../../src/scheduler/model/plan-builder.ts';
import { commitPlacement, findPlacement, maximumItems, type PlacementItem } from '../../../src/scheduler/model/placement.ts';
import { QueueGate, queueKey } from '../../../src/scheduler/queues/queue-gate.ts';
import type { Resources } from '../../../src/scheduler/types.ts';
import type { SchedulingPolicy } from '../../../src/scheduler/policies/policy.ts';

function fifoOrder(a: CompiledJob, b: CompiledJob): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.submittedAt !== b.submittedAt) return a.submittedAt - b.submittedAt;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function totalOf(items: readonly PlacementItem[]): Resources {
  const out: Record<string, number> = {};
  for (const it of items) for (const [k, v] of Object.entries(it.group.requests)) out[k] = (out[k] ?? 0) + v * it.count;
  return out;
}

export const gangFifoPolicy: SchedulingPolicy = {
  name: 'gang-fifo',
  description: 'Gang admission at maximum size, strict FIFO within a priority class, no preemption or scaling',
  schedule(snapshot, config) {
    const model = buildPassModel(snapshot, config);
    const { state, now } = model;
    const plan = new PlanBuilder();
    const outcomes = new Map<string, WaitOutcome>();
    const gate = new QueueGate(snapshot, model.running);
    const queue = [...model.waiting].sort(fifoOrder);
    // The blocked head of each queue ('' = no queue: the single global one).
    const blockedBy = new Map<string, CompiledJob>();
    for (const job of queue) {
      const head = blockedBy.get(queueKey(job));
      if (head !== undefined) {
        outcomes.set(job.key, { kind: 'gang-behind', head });
        continue;
      }
      const items = maximumItems(job);
      const ever = findPlacement(model.emptyCluster(), items, `${job.signature}#max`);
      if (!ever.ok) {
        outcomes.set(job.key, { kind: 'never-fits', failure: ever.failure, configuration: 'maximum', emptyCluster: model.emptyCluster() });
        continue;
      }
      const demand = totalOf(items);
      // More than its queue can ever hold: skipped like a gang that never fits the cluster.
      const never = gate.inadmissibleReason(job, demand);
      if (never !== undefined) {
        outcomes.set(job.key, { kind: 'quota', why: never });
        continue;
      }
      const why = gate.blockOf(job, demand);
      if (why !== undefined) {
        outcomes.set(job.key, { kind: 'quota', why });
        blockedBy.set(queueKey(job), job);
        continue;
      }
      const out = findPlacement(state, items, `${job.signature}#max`);
      if (out.ok) {
        commitPlacement(state, items, out.placement);
        plan.admit(job.key, admitPlaced(model, job, items, out.placement));
        gate.charge(job, demand, 1);
      } else {
        outcomes.set(job.key, { kind: 'gang-blocked', failure: out.failure });
        blockedBy.set(queueKey(job), job);
      }
    }
    const waiting = gate.withPositions(
      gangWaitingReasons(queue, outcomes, { state, now, starveLimitMs: config.starveLimitMs }),
      model.jobs,
    );
    return plan.build(waiting, sortedWeights([...model.jobs.values()].map((j) => [j.key, j.baseWeight] as const)));
  },
};
