// What each queue holds and who waits in it, for queue status, metrics and the kubectl plugin:
// pure, from a snapshot and the plan made on it.

import type { ClusterSnapshot, Plan, Resources } from '../types.ts';

export interface QueueHeadEntry {
  readonly job: string;
  readonly position: number;
  readonly reason: string;
}

export interface QueueSummary {
  readonly name: string;
  /** Waiting jobs charged to the queue (after the plan's admissions). */
  readonly pending: number;
  /** Running jobs charged to the queue (the plan's admissions included). */
  readonly admitted: number;
  /** What the queue's running jobs request, per resource its quota names (before the plan). */
  readonly usage: Resources;
  /** Usage above the nominal quota, per resource (zero entries left out). */
  readonly borrowed: Resources;
  /** The first waiting jobs, in the order the pass considered them. */
  readonly heads: readonly QueueHeadEntry[];
}

export function summarizeQueues(snapshot: ClusterSnapshot, plan: Plan, maxHeads = 50): QueueSummary[] {
  const admittedNow = new Set(plan.admit.map((a) => a.job));
  const suspendedNow = new Set(plan.suspend.map((s) => s.job));
  return (snapshot.queues ?? []).map((q) => {
    const usage: Record<string, number> = {};
    for (const r of Object.keys(q.nominalQuota)) usage[r] = 0;
    let pending = 0;
    let admitted = 0;
    for (const j of snapshot.jobs) {
      if (j.spec.queue !== q.name || j.phase === 'finished') continue;
      const running = (j.phase === 'running' && !suspendedNow.has(j.spec.key)) || admittedNow.has(j.spec.key);
      if (running) admitted++;
      else pending++;
      if (j.phase !== 'running') continue;
      for (const r of j.replicas) {
        const req = j.spec.workers?.type === r.type ? j.spec.workers.requests : j.spec.fixed.find((g) => g.type === r.type)?.requests;
        for (const name of Object.keys(usage)) usage[name] = usage[name]! + (req?.[name] ?? 0);
      }
    }
    const borrowed: Record<string, number> = {};
    for (const [r, n] of Object.entries(q.nominalQuota)) if (usage[r]! > n) borrowed[r] = usage[r]! - n;
    const heads = plan.waiting
      .filter((w) => w.queue?.name === q.name)
      .slice(0, maxHeads)
      .map((w) => ({ job: w.job, position: w.queue!.position, reason: w.reason }));
    return { name: q.name, pending, admitted, usage, borrowed, heads };
  });
}
