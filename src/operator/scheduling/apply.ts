// Stage 3 of a scheduling pass: the decided plan becomes desired state and removals. Target
// selection happened in the core (which workers a preemption takes, where each pod goes); this stage
// issues it, in a fixed order: pods stranded on lost nodes, then preemptions and scale-ins (victims
// are marked and deleted before anything is created for their preemptor), then admissions,
// scale-outs and repairs, which only record placements in the decision book — the TFJob controller
// creates those pods when it reconciles the jobs returned as `touched`.
//
// What happened is returned as outcomes; turning them into events and metrics is the report stage's.
import type { V1Pod } from '@kubernetes/client-node';
import { REMOVAL_NODE_LOST, REMOVAL_PREEMPTION, REMOVAL_SCALE_IN } from '../../api/v1/constants.ts';
import { replicaName } from '../../controllers/tfjob/index.ts';
import type { ReplicaInstance } from '../../scheduler/index.ts';
import { objectKey } from '../../runtime/store.ts';
import type { Decided } from './decide.ts';
import type { DecisionBook } from './decisions.ts';
import type { PodRemover } from './pod-remover.ts';
import type { JobFacts } from './snapshot.ts';

export type Outcome =
  | { readonly kind: 'nodeLost'; readonly job: string; readonly pod: string; readonly node: string; readonly why: string }
  | {
      readonly kind: 'scaledIn';
      readonly job: string;
      /** The job the workers were preempted for; absent for a plain scale-in. */
      readonly forJob?: string;
      readonly count: number;
      /** Pods deleted (a preempted placement that was still pending has no pod). */
      readonly removed: readonly string[];
      readonly workers: number;
      readonly min: number;
    }
  | {
      readonly kind: 'admitted';
      readonly job: string;
      readonly workers: number;
      readonly replicas: readonly ReplicaInstance[];
      readonly waitedMs: number;
    }
  | {
      readonly kind: 'scaledOut';
      readonly job: string;
      readonly added: readonly ReplicaInstance[];
      readonly workers: number;
      readonly max: number;
    }
  | { readonly kind: 'placed'; readonly job: string; readonly name?: string; readonly node: string }
  | { readonly kind: 'waiting'; readonly job: string; readonly reason: string; readonly starving: boolean };

export interface Applied {
  /** Jobs whose desired state changed: the TFJob controller reconciles them next. */
  readonly touched: ReadonlySet<string>;
  readonly outcomes: readonly Outcome[];
  /**
   * A removal the API refused: the stage stopped there (the pass is retried), and what it did
   * before still is reported.
   */
  readonly error?: Error;
}

export async function applyDecisions(
  book: DecisionBook,
  remover: PodRemover,
  facts: readonly JobFacts[],
  decided: Decided,
  now: number,
): Promise<Applied> {
  const touched = new Set<string>();
  const outcomes: Outcome[] = [];
  try {
    await apply(book, remover, facts, decided, now, touched, outcomes);
    return { touched, outcomes };
  } catch (error) {
    return { touched, outcomes, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

async function apply(
  book: DecisionBook,
  remover: PodRemover,
  facts: readonly JobFacts[],
  decided: Decided,
  now: number,
  touched: Set<string>,
  outcomes: Outcome[],
): Promise<void> {
  const { plan, repairs } = decided;
  const byKey = new Map(facts.map((f) => [f.key, f]));
  const stamp = new Date(now).toISOString();

  // Pods stranded on lost nodes go first: they are removed so their replicas can be placed again.
  for (const f of facts) {
    for (const { pod, why, nodeGone } of f.lost) {
      await remover.remove(pod, REMOVAL_NODE_LOST, { force: nodeGone });
      touched.add(f.key);
      outcomes.push({ kind: 'nodeLost', job: f.key, pod: pod.metadata?.name ?? '', node: pod.spec?.nodeName ?? '', why });
    }
  }

  // Preemptions next: the victims' pods are marked and deleted before anything is created.
  for (const s of plan.scaleIn) {
    const f = byKey.get(s.job);
    const d = book.get(s.job);
    if (f === undefined || d === undefined) continue;
    const preemption = s.forJob !== s.job;
    const removed: string[] = [];
    for (const r of s.remove) {
      const name = replicaName(f.raw.metadata.name, r.type, r.index);
      const pod: V1Pod | undefined = f.live.get(name);
      if (pod !== undefined) {
        // Registered before the delete: its watch event may arrive before the call returns.
        if (preemption) book.get(s.forJob)?.victims.add(objectKey(pod));
        await remover.remove(pod, preemption ? REMOVAL_PREEMPTION : REMOVAL_SCALE_IN);
        removed.push(name);
      } else {
        const i = d.pendingWorkers.findIndex((p) => p.node === r.node);
        if (i >= 0) d.pendingWorkers.splice(i, 1);
      }
    }
    d.targetWorkers = Math.max(f.bounds.min, d.targetWorkers - s.remove.length);
    d.preemptions += s.remove.length;
    d.lastScaleTime = stamp;
    touched.add(s.job);
    outcomes.push({
      kind: 'scaledIn',
      job: s.job,
      ...(preemption ? { forJob: s.forJob } : {}),
      count: s.remove.length,
      removed,
      workers: d.targetWorkers,
      min: f.bounds.min,
    });
  }

  for (const a of plan.admit) {
    const f = byKey.get(a.job);
    const d = book.get(a.job);
    if (f === undefined || d === undefined) continue;
    d.admitted = true;
    let workers = 0;
    for (const r of a.replicas) {
      if (r.node === undefined) continue;
      if (r.type === 'Worker' && f.elastic) {
        d.pendingWorkers.push({ node: r.node, since: now });
        workers += 1;
      } else {
        d.pendingByName.set(replicaName(f.raw.metadata.name, r.type, r.index), { node: r.node, since: now });
        if (r.type === 'Worker') workers += 1;
      }
    }
    d.targetWorkers = f.elastic ? Math.max(f.bounds.min, workers) : f.bounds.max;
    d.reason = 'Admitted';
    d.message = undefined;
    d.starving = false;
    touched.add(a.job);
    outcomes.push({ kind: 'admitted', job: a.job, workers, replicas: a.replicas, waitedMs: now - d.enqueueTime });
  }

  for (const s of plan.scaleOut) {
    const f = byKey.get(s.job);
    const d = book.get(s.job);
    if (f === undefined || d === undefined || !f.elastic) continue;
    for (const r of s.add) if (r.node !== undefined) d.pendingWorkers.push({ node: r.node, since: now });
    d.targetWorkers = Math.min(f.bounds.max, d.targetWorkers + s.add.length);
    d.scaleOuts += s.add.length;
    d.lastScaleTime = stamp;
    touched.add(s.job);
    outcomes.push({ kind: 'scaledOut', job: s.job, added: s.add, workers: d.targetWorkers, max: f.bounds.max });
  }

  for (const r of repairs) {
    const d = book.get(r.replica.job);
    if (!byKey.has(r.replica.job) || d === undefined) continue;
    if (r.replica.name !== undefined) d.pendingByName.set(r.replica.name, { node: r.node, since: now });
    else d.pendingWorkers.push({ node: r.node, since: now });
    touched.add(r.replica.job);
    outcomes.push({ kind: 'placed', job: r.replica.job, ...(r.replica.name === undefined ? {} : { name: r.replica.name }), node: r.node });
  }

  // Elastic jobs that lost workers and cannot get them back shrink, but never below their minimum.
  for (const f of facts) {
    const d = book.get(f.key);
    if (d === undefined || !d.admitted || !f.elastic) continue;
    const lost = f.missing.filter((m) => m.name === undefined).length;
    const replaced = repairs.filter((r) => r.replica.job === f.key && r.replica.name === undefined).length;
    const shrink = Math.min(lost - replaced, d.targetWorkers - f.bounds.min);
    if (shrink > 0) {
      d.targetWorkers -= shrink;
      touched.add(f.key);
    }
  }

  for (const w of plan.waiting) {
    const d = book.get(w.job);
    if (!byKey.has(w.job) || d === undefined) continue;
    const kind = w.starving ? 'Starving' : 'Waiting';
    if (d.message !== w.reason || d.reason !== kind || d.starving !== w.starving) {
      d.reason = kind;
      d.message = w.reason;
      d.starving = w.starving;
      touched.add(w.job);
    }
    outcomes.push({ kind: 'waiting', job: w.job, reason: w.reason, starving: w.starving });
  }

  for (const [job, weight] of Object.entries(plan.weights)) {
    const d = book.get(job);
    if (d === undefined) continue;
    const rounded = Math.round(weight * 1000) / 1000;
    if (d.weight !== rounded) {
      d.weight = rounded;
      touched.add(job);
    }
  }
}
