// The apply stage of a scheduling pass: the decided plan becomes desired state and removals. Target
// selection happened in the core (which workers a preemption takes, where each pod goes); this stage
// issues it, in a fixed order: pods stranded on lost nodes, then preemptions and scale-ins (victims are
// marked and deleted before anything is created for their preemptor), then admissions, scale-outs and
// repairs, which only record placements in the decision book — the TFJob controller creates those pods
// when it reconciles the jobs returned as `touched`.
//
// What happened is returned as outcomes; turning them into events and metrics is the report stage's.
import type { V1Pod } from '@kubernetes/client-node';
import { REMOVAL_NODE_LOST, REMOVAL_PREEMPTION, REMOVAL_REFUSED, REMOVAL_SCALE_IN } from '../../../api/v1/constants.ts';
import { replicaName } from '../../../controllers/tfjob/index.ts';
import { objectKey } from '../../../runtime/store.ts';
import type { Plan } from '../../../scheduler/index.ts';
import type { Decided } from './decide.ts';
import { attainedReportDue, type Decision, type DecisionBook } from '../decisions/book.ts';
import * as messages from '../messages.ts';
import { isLiveWorker, podNode } from '../pod-facts.ts';
import type { PodRemover } from '../pod-remover.ts';
import type { JobFacts } from './snapshot.ts';

/** The Event reason of each kind of outcome; also `status.scheduling.reason` of the job. */
export type OutcomeReason =
  'NodeLost' | 'RefusedByScheduler' | 'Suspended' | 'Preempted' | 'ScaledIn' | 'Admitted' | 'ScaledOut' | 'Placed' | 'Waiting' | 'Starving';

/** One thing a pass did to (or found about) a job, with the text users read about it. */
export interface Outcome {
  readonly job: string;
  readonly reason: OutcomeReason;
  readonly message: string;
  /** Workers preempted, scaled in or scaled out. */
  readonly workers?: number;
  /** How long an admitted job waited (ms). */
  readonly waitedMs?: number;
  /**
   * Waiting/Starving only: false when the job's status already said exactly this (e.g. the previous
   * leader reported it), so no new event is due.
   */
  readonly news?: boolean;
}

export interface ApplyOptions {
  /** A job admitted after waiting this long was starving (said in its status and event). */
  readonly starveLimitMs: number;
  /** Simulated time runs this many times faster than real time (demo); waits are told in simulated seconds. */
  readonly timeScale: number;
  /** How long a node kube-scheduler refused a job's pod on is avoided for that job (ms). */
  readonly avoidRefusedNodeMs: number;
}

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
  options: ApplyOptions,
): Promise<Applied> {
  const touched = new Set<string>();
  const outcomes: Outcome[] = [];
  try {
    await apply({ book, remover, facts, decided, now, options }, touched, outcomes);
    return { touched, outcomes };
  } catch (error) {
    return { touched, outcomes, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

interface ApplyInput {
  readonly book: DecisionBook;
  readonly remover: PodRemover;
  readonly facts: readonly JobFacts[];
  readonly decided: Decided;
  readonly now: number;
  readonly options: ApplyOptions;
}

/** A running job's status tells the last thing the scheduler did to it. */
function note(d: Decision, o: Outcome, outcomes: Outcome[]): void {
  d.reason = o.reason;
  d.message = o.message;
  outcomes.push(o);
}

async function apply(input: ApplyInput, touched: Set<string>, outcomes: Outcome[]): Promise<void> {
  const { book, remover, facts, decided, now, options } = input;
  const { plan, repairs } = decided;
  const byKey = new Map(facts.map((f) => [f.key, f]));
  const stamp = new Date(now).toISOString();
  /** Workers of each job that this plan moves (relocated scale-in, given back by its scale-out). */
  const relocated = new Map<string, number>();
  const standing = (job: string): messages.Standing => {
    const f = byKey.get(job);
    return {
      job,
      priorityClass: f?.raw.spec?.runPolicy?.schedulingPolicy?.priorityClass ?? '',
      priority: f?.state.spec.priority ?? 0,
      weight: plan.weights[job],
    };
  };

  // Pods stranded on lost nodes go first: they are removed so their replicas can be placed again.
  for (const f of facts) {
    for (const { pod, why, nodeGone } of f.lost) {
      await remover.remove(pod, REMOVAL_NODE_LOST, { force: nodeGone });
      touched.add(f.key);
      outcomes.push({
        job: f.key,
        reason: 'NodeLost',
        message: messages.nodeLost(pod.metadata?.name ?? '', podNode(pod) ?? '', why),
      });
    }
  }
  // Pods kube-scheduler keeps refusing on the node chosen for them: removed, and the node avoided for
  // the job, so the next pass places them elsewhere (their replicas are missing once they are gone).
  for (const f of facts) {
    for (const { pod, refusal } of f.refused) {
      await remover.remove(pod, REMOVAL_REFUSED);
      book.avoid(f.key, refusal.node, now + options.avoidRefusedNodeMs);
      touched.add(f.key);
      outcomes.push({
        job: f.key,
        reason: 'RefusedByScheduler',
        message: messages.refusedByScheduler(
          pod.metadata?.name ?? '',
          refusal.node,
          refusal.message,
          Math.round((now - refusal.since) / 1000),
          Math.round(options.avoidRefusedNodeMs / 1000),
        ),
      });
    }
  }
  // Suspensions and preemptions next: the victims' pods are marked and deleted before anything is
  // created. A suspended job gives back every pod and returns to the queue (ours, suspendable jobs).
  for (const s of plan.suspend) {
    const f = byKey.get(s.job);
    const d = book.get(s.job);
    if (f === undefined || d === undefined) continue;
    let workers = 0;
    for (const pod of f.live.values()) {
      const victim = { key: objectKey(pod), uid: pod.metadata?.uid, node: podNode(pod) };
      book.preempting(s.forJob, victim);
      const result = await remover.remove(pod, REMOVAL_PREEMPTION);
      if (result === 'gone') book.podGone(victim);
      if (isLiveWorker(pod)) workers += 1;
    }
    d.admitted = false;
    d.pendingByName.clear();
    d.pendingWorkers = [];
    d.targetWorkers = f.bounds.min;
    d.preemptions += workers;
    d.lastScaleTime = stamp;
    touched.add(s.job);
    note(
      d,
      {
        job: s.job,
        reason: 'Suspended',
        message: messages.suspended(f.live.size, standing(s.forJob), standing(s.job), d.attainedWorkerSeconds),
        workers,
      },
      outcomes,
    );
  }
  for (const s of plan.scaleIn) {
    const f = byKey.get(s.job);
    const d = book.get(s.job);
    if (f === undefined || d === undefined) continue;
    const preemption = s.forJob !== s.job;
    const removed: string[] = [];
    for (const r of s.remove) {
      const name = replicaName(f.raw.metadata.name, r.type, r.index);
      // The core removes only workers that have a pod (a placement may be being created: pending).
      const pod: V1Pod | undefined = f.live.get(name);
      if (pod === undefined) continue;
      const victim = { key: objectKey(pod), uid: pod.metadata?.uid, node: podNode(pod) };
      // Registered before the delete: its watch event may arrive before the call returns.
      if (preemption) book.preempting(s.forJob, victim);
      const result = await remover.remove(pod, preemption ? REMOVAL_PREEMPTION : REMOVAL_SCALE_IN);
      if (result === 'gone') book.podGone(victim);
      removed.push(name);
    }
    // A move (relocated) keeps the job's size: its replacements come in this plan's scale-out, which
    // then adds only what is more. Should the stage stop before that, the next pass repairs the gap.
    if (s.relocated === true) relocated.set(s.job, (relocated.get(s.job) ?? 0) + s.remove.length);
    else d.targetWorkers = Math.max(f.bounds.min, d.targetWorkers - s.remove.length);
    d.preemptions += s.remove.length;
    d.lastScaleTime = stamp;
    touched.add(s.job);
    const message =
      s.relocated === true
        ? messages.relocatedFrom(s.remove.length, removed, s.forJob)
        : s.toMeetTarget === true
          ? messages.gaveForTarget(s.remove.length, removed, s.forJob, d.targetWorkers)
          : s.reclaimedBy !== undefined
            ? messages.reclaimed(s.remove.length, removed, s.forJob, f.state.spec.queue, s.reclaimedBy, d.targetWorkers, f.bounds.min)
            : preemption
              ? messages.preempted(s.remove.length, removed, standing(s.forJob), standing(s.job), d.targetWorkers, f.bounds.min)
              : messages.scaledIn(s.remove.length, removed, d.targetWorkers);
    const reason = preemption && s.toMeetTarget !== true && s.relocated !== true ? 'Preempted' : 'ScaledIn';
    note(d, { job: s.job, reason, message, workers: s.remove.length }, outcomes);
  }

  const donors = donorsByReceiver(plan);
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
    const waitedMs = now - d.enqueueTime;
    // Starving stays said once the job is admitted: it is why it was admitted ahead of others.
    d.starving = waitedMs >= options.starveLimitMs;
    const starvedSeconds = d.starving ? Math.round((waitedMs * options.timeScale) / 1000) : undefined;
    touched.add(a.job);
    note(
      d,
      { job: a.job, reason: 'Admitted', message: messages.admitted(workers, plan.weights[a.job], starvedSeconds, a.replicas), waitedMs },
      outcomes,
    );
    // Workers beyond the minimum taken at admission are a scale-out into idle capacity too.
    const extra = f.elastic ? a.replicas.filter((r) => r.type === 'Worker' && r.node !== undefined).slice(f.bounds.min) : [];
    if (extra.length > 0) {
      d.scaleOuts += extra.length;
      d.lastScaleTime = stamp;
      outcomes.push({
        job: a.job,
        reason: 'ScaledOut',
        message: messages.scaledOut(extra, d.targetWorkers, f.bounds.max, true, donors.get(a.job)),
        workers: extra.length,
      });
    }
  }

  for (const s of plan.scaleOut) {
    const f = byKey.get(s.job);
    const d = book.get(s.job);
    if (f === undefined || d === undefined || !f.elastic) continue;
    for (const r of s.add) if (r.node !== undefined) d.pendingWorkers.push({ node: r.node, since: now });
    const moved = Math.min(relocated.get(s.job) ?? 0, s.add.length);
    d.targetWorkers = Math.min(f.bounds.max, d.targetWorkers + s.add.length - moved);
    d.scaleOuts += s.add.length;
    d.lastScaleTime = stamp;
    touched.add(s.job);
    const message =
      moved > 0
        ? messages.relocatedTo(s.add, moved, d.targetWorkers)
        : messages.scaledOut(s.add, d.targetWorkers, f.bounds.max, false, donors.get(s.job));
    note(d, { job: s.job, reason: 'ScaledOut', message, workers: s.add.length }, outcomes);
  }

  for (const r of repairs) {
    const d = book.get(r.replica.job);
    if (!byKey.has(r.replica.job) || d === undefined) continue;
    if (r.replica.name !== undefined) d.pendingByName.set(r.replica.name, { node: r.node, since: now });
    else d.pendingWorkers.push({ node: r.node, since: now });
    touched.add(r.replica.job);
    note(d, { job: r.replica.job, reason: 'Placed', message: messages.placed(r.replica.name, r.node) }, outcomes);
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
    const reason = w.starving ? 'Starving' : 'Waiting';
    const news = d.message !== w.reason || d.reason !== reason || d.starving !== w.starving;
    if (news) {
      d.reason = reason;
      d.message = w.reason;
      d.starving = w.starving;
      touched.add(w.job);
    }
    outcomes.push({ job: w.job, reason, message: w.reason, news });
  }

  // The job's ClusterQueue, for its status (it changes only when its queue labels or LocalQueue do).
  for (const f of facts) {
    const d = book.get(f.key);
    if (d === undefined || d.clusterQueue === f.state.spec.queue) continue;
    if (f.state.spec.queue === undefined) delete d.clusterQueue;
    else d.clusterQueue = f.state.spec.queue;
    touched.add(f.key);
  }

  // Attained service reaches the status in steps (a restart restores it from there).
  for (const f of facts) {
    const d = book.get(f.key);
    if (d === undefined || !attainedReportDue(d)) continue;
    d.attainedReported = Math.floor(d.attainedWorkerSeconds);
    touched.add(f.key);
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

/**
 * Per job receiving room, the jobs scaled in for it this pass (preemption or reclaim for its
 * admission, reclaim for its growth, performance targets): its ScaledOut event names them instead of
 * saying "idle capacity".
 */
function donorsByReceiver(plan: Plan): Map<string, messages.Donor[]> {
  const out = new Map<string, messages.Donor[]>();
  for (const s of plan.scaleIn) {
    if (s.forJob === s.job || s.relocated === true || s.remove.length === 0) continue;
    const list = out.get(s.forJob) ?? [];
    const known = list.find((d) => d.job === s.job);
    if (known === undefined) list.push({ job: s.job, workers: s.remove.length });
    else list[list.indexOf(known)] = { job: s.job, workers: known.workers + s.remove.length };
    out.set(s.forJob, list);
  }
  return out;
}
