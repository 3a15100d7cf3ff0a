// The apply stage of a scheduling pass: the decided plan becomes desired state and removals. Target
// selection happened in the core (which workers a preemption takes, where each pod goes); this stage
// issues it, in a fixed order: pods stranded on lost nodes, then preemptions and scale-ins (victims are
// marked and deleted before anything is created for their preemptor), then admissions, scale-outs and
// repairs, which only record placements in the decision book — the TFJob controller creates those pods
// when it reconciles the jobs returned as `touched`. One small function per kind of plan entry, each
// changing decisions only through the book's transitions (decisions/book.ts).
//
// What happened is returned as outcomes; turning them into events and metrics is the report stage's.
import type { V1Pod } from '@kubernetes/client-node';
import { REMOVAL_NODE_LOST, REMOVAL_PREEMPTION, REMOVAL_REFUSED, REMOVAL_SCALE_IN } from '../../../api/v1/constants.ts';
import { replicaName } from '../../../reconciler/tfjob/index.ts';
import { objectKey } from '../../../runtime/store.ts';
import type { Plan, RepairPlacement } from '../../../scheduler/index.ts';
import type { Decided } from './decide.ts';
import type { DecisionBook } from '../decisions/book.ts';
import { attainedReportDue } from '../decisions/decision.ts';
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
  const step: Step = {
    book,
    remover,
    byKey: new Map(facts.map((f) => [f.key, f])),
    plan: decided.plan,
    now,
    options,
    touched: new Set<string>(),
    outcomes: [],
    relocated: new Map(),
  };
  try {
    await apply(step, facts, decided.repairs);
    return { touched: step.touched, outcomes: step.outcomes };
  } catch (error) {
    return { touched: step.touched, outcomes: step.outcomes, error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/** What every step of the stage reads, and what it adds to. */
interface Step {
  readonly book: DecisionBook;
  readonly remover: PodRemover;
  readonly byKey: ReadonlyMap<string, JobFacts>;
  readonly plan: Plan;
  readonly now: number;
  readonly options: ApplyOptions;
  readonly touched: Set<string>;
  readonly outcomes: Outcome[];
  /** Workers of each job that this plan moves (relocated scale-in, given back by its scale-out). */
  readonly relocated: Map<string, number>;
}

async function apply(s: Step, facts: readonly JobFacts[], repairs: readonly RepairPlacement[]): Promise<void> {
  // Pods stranded on lost nodes and pods kube-scheduler refuses go first, then suspensions and
  // preemptions: victims are marked and deleted before anything is created for their preemptor.
  for (const f of facts) await removeLost(s, f);
  for (const f of facts) await removeRefused(s, f);
  for (const f of facts) holdWithinMax(s, f);
  for (const e of s.plan.suspend) await suspend(s, e);
  for (const e of s.plan.scaleIn) await scaleIn(s, e);
  const donors = donorsByReceiver(s.plan);
  for (const e of s.plan.admit) admit(s, e, donors);
  for (const e of s.plan.scaleOut) scaleOut(s, e, donors);
  for (const r of repairs) repair(s, r);
  for (const f of facts) shrinkLost(s, f, repairs);
  for (const w of s.plan.waiting) wait(s, w);
  for (const f of facts) if (s.book.chargeTo(f.key, f.state.spec.queue)) s.touched.add(f.key);
  for (const f of facts) reportAttained(s, f);
  for (const [job, weight] of Object.entries(s.plan.weights)) if (s.book.weigh(job, weight)) s.touched.add(job);
}

/** The outcome is what the scheduler last did to the job: its status says so too. */
function tell(s: Step, o: Outcome): void {
  s.touched.add(o.job);
  s.book.explain(o.job, o.reason, o.message);
  s.outcomes.push(o);
}

/** A job's place in the ranking, as messages about preemption tell it. */
function standing(s: Step, job: string): messages.Standing {
  const f = s.byKey.get(job);
  return {
    job,
    priorityClass: f?.raw.spec?.runPolicy?.schedulingPolicy?.priorityClass ?? '',
    priority: f?.state.spec.priority ?? 0,
    weight: s.plan.weights[job],
  };
}

/** The job's facts, when the book has a decision for it too. */
function known(s: Step, job: string): JobFacts | undefined {
  return s.book.get(job) === undefined ? undefined : s.byKey.get(job);
}

/** Removes a pod the plan takes from its job; `forJob` set: preempted for that job (registered first). */
async function removeVictim(s: Step, pod: V1Pod, removal: string, forJob: string | undefined): Promise<void> {
  const victim = { key: objectKey(pod), uid: pod.metadata?.uid, node: podNode(pod) };
  // Registered before the delete: its watch event may arrive before the call returns.
  if (forJob !== undefined) s.book.preempting(forJob, victim);
  if ((await s.remover.remove(pod, removal)) === 'gone') s.book.podGone(victim);
}

/** Pods on lost nodes are removed so their replicas can be placed again. */
async function removeLost(s: Step, f: JobFacts): Promise<void> {
  for (const { pod, why, nodeGone } of f.lost) {
    await s.remover.remove(pod, REMOVAL_NODE_LOST, { force: nodeGone });
    s.touched.add(f.key);
    s.outcomes.push({ job: f.key, reason: 'NodeLost', message: messages.nodeLost(pod.metadata?.name ?? '', podNode(pod) ?? '', why) });
  }
}

/**
 * Pods kube-scheduler keeps refusing on the node chosen for them: removed, and the node avoided for
 * the job, so the next pass places them elsewhere (their replicas are missing once they are gone).
 */
async function removeRefused(s: Step, f: JobFacts): Promise<void> {
  const { now, options } = s;
  for (const { pod, refusal } of f.refused) {
    await s.remover.remove(pod, REMOVAL_REFUSED);
    s.book.avoid(f.key, refusal.node, now + options.avoidRefusedNodeMs);
    s.touched.add(f.key);
    const waited = Math.round((now - refusal.since) / 1000);
    const avoid = Math.round(options.avoidRefusedNodeMs / 1000);
    s.outcomes.push({
      job: f.key,
      reason: 'RefusedByScheduler',
      message: messages.refusedByScheduler(pod.metadata?.name ?? '', refusal.node, refusal.message, waited, avoid),
    });
  }
}

/** A suspended job gives back every pod and returns to the queue (ours, suspendable jobs). */
async function suspend(s: Step, e: Plan['suspend'][number]): Promise<void> {
  const f = known(s, e.job);
  if (f === undefined) return;
  let workers = 0;
  for (const pod of f.live.values()) {
    await removeVictim(s, pod, REMOVAL_PREEMPTION, e.forJob);
    if (isLiveWorker(pod)) workers += 1;
  }
  s.book.suspend(e.job, { minWorkers: f.bounds.min, preempted: workers, now: s.now });
  const attained = s.book.get(e.job)?.attainedWorkerSeconds ?? 0;
  const message = messages.suspended(f.live.size, standing(s, e.forJob), standing(s, e.job), attained);
  tell(s, { job: e.job, reason: 'Suspended', message, workers });
}

async function scaleIn(s: Step, e: Plan['scaleIn'][number]): Promise<void> {
  const f = known(s, e.job);
  if (f === undefined) return;
  const preemption = e.forJob !== e.job;
  const removed: string[] = [];
  for (const r of e.remove) {
    const name = replicaName(f.raw.metadata.name, r.type, r.index);
    // The core removes only workers that have a pod (a placement may be being created: pending).
    const pod = f.live.get(name);
    if (pod === undefined) continue;
    await removeVictim(s, pod, preemption ? REMOVAL_PREEMPTION : REMOVAL_SCALE_IN, preemption ? e.forJob : undefined);
    removed.push(name);
  }
  // A move (relocated) keeps the job's size: its replacements come in this plan's scale-out, which
  // then adds only what is more. Should the stage stop before that, the next pass repairs the gap.
  const relocated = e.relocated === true;
  if (relocated) s.relocated.set(e.job, (s.relocated.get(e.job) ?? 0) + e.remove.length);
  s.book.scaleIn(e.job, { removed: e.remove.length, relocated, minWorkers: f.bounds.min, now: s.now });
  const reason = preemption && e.toMeetTarget !== true && !relocated ? 'Preempted' : 'ScaledIn';
  tell(s, { job: e.job, reason, message: scaleInMessage(s, e, f, removed), workers: e.remove.length });
}

function scaleInMessage(s: Step, e: Plan['scaleIn'][number], f: JobFacts, removed: readonly string[]): string {
  const n = e.remove.length;
  const target = s.book.get(e.job)?.targetWorkers ?? 0;
  if (e.relocated === true) return messages.relocatedFrom(n, removed, e.forJob, e.job);
  if (e.toMeetTarget === true) return messages.gaveForTarget(n, removed, e.forJob, target);
  if (e.reclaimedBy !== undefined) return messages.reclaimed(n, removed, e.forJob, f.state.spec.queue, e.reclaimedBy, target, f.bounds.min);
  if (e.forJob !== e.job) return messages.preempted(n, removed, standing(s, e.forJob), standing(s, e.job), target, f.bounds.min);
  return messages.scaledIn(n, removed, target);
}

function admit(s: Step, e: Plan['admit'][number], donors: ReadonlyMap<string, messages.Donor[]>): void {
  const f = known(s, e.job);
  const enqueueTime = s.book.get(e.job)?.enqueueTime;
  if (f === undefined || enqueueTime === undefined) return;
  const byName: [string, string][] = [];
  const workerNodes: string[] = [];
  let workers = 0;
  for (const r of e.replicas) {
    if (r.node === undefined) continue;
    if (r.type === 'Worker') workers += 1;
    if (r.type === 'Worker' && f.elastic) workerNodes.push(r.node);
    else byName.push([replicaName(f.raw.metadata.name, r.type, r.index), r.node]);
  }
  const targetWorkers = f.elastic ? Math.max(f.bounds.min, workers) : f.bounds.max;
  const waitedMs = s.now - enqueueTime;
  // Starving stays said once the job is admitted: it is why it was admitted ahead of others.
  const starving = waitedMs >= s.options.starveLimitMs;
  // Workers beyond the minimum taken at admission are a scale-out into idle capacity too.
  const extra = f.elastic ? e.replicas.filter((r) => r.type === 'Worker' && r.node !== undefined).slice(f.bounds.min) : [];
  s.book.admit(e.job, { byName, workerNodes, targetWorkers, starving, scaledOut: extra.length }, s.now);
  const starvedSeconds = starving ? Math.round((waitedMs * s.options.timeScale) / 1000) : undefined;
  const message = messages.admitted(workers, s.plan.weights[e.job], starvedSeconds, e.replicas);
  tell(s, { job: e.job, reason: 'Admitted', message, waitedMs });
  if (extra.length === 0) return;
  s.outcomes.push({
    job: e.job,
    reason: 'ScaledOut',
    message: messages.scaledOut(extra, targetWorkers, f.bounds.max, true, donors.get(e.job)),
    workers: extra.length,
  });
}

function scaleOut(s: Step, e: Plan['scaleOut'][number], donors: ReadonlyMap<string, messages.Donor[]>): void {
  const f = known(s, e.job);
  if (f === undefined || !f.elastic) return;
  const nodes = e.add.flatMap((r) => (r.node === undefined ? [] : [r.node]));
  const moved = Math.min(s.relocated.get(e.job) ?? 0, e.add.length);
  s.book.scaleOut(e.job, { nodes, added: e.add.length, moved, maxWorkers: f.bounds.max, now: s.now });
  const target = s.book.get(e.job)?.targetWorkers ?? 0;
  const message =
    moved > 0 ? messages.relocatedTo(e.add, moved, target) : messages.scaledOut(e.add, target, f.bounds.max, false, donors.get(e.job));
  tell(s, { job: e.job, reason: 'ScaledOut', message, workers: e.add.length });
}

function repair(s: Step, r: RepairPlacement): void {
  if (known(s, r.replica.job) === undefined) return;
  s.book.repair(r.replica.job, { name: r.replica.name, node: r.node }, s.now);
  tell(s, { job: r.replica.job, reason: 'Placed', message: messages.placed(r.replica.name, r.node) });
}

/** A job whose maximum dropped (a worker slot given up) holds its target within it. */
function holdWithinMax(s: Step, f: JobFacts): void {
  const d = s.book.get(f.key);
  if (d === undefined || !f.elastic || d.targetWorkers <= f.bounds.max) return;
  s.book.shrink(f.key, d.targetWorkers - f.bounds.max);
  s.touched.add(f.key);
}

/** Elastic jobs that lost workers and cannot get them back shrink, but never below their minimum. */
function shrinkLost(s: Step, f: JobFacts, repairs: readonly RepairPlacement[]): void {
  const d = s.book.get(f.key);
  if (d === undefined || !d.admitted || !f.elastic) return;
  const lost = f.missing.filter((m) => m.name === undefined).length;
  if (lost === 0) return;
  const replaced = repairs.filter((r) => r.replica.job === f.key && r.replica.name === undefined).length;
  // The workers the job will have once this plan is carried out: a scale-out in the same plan fills
  // its holes too (a failed worker being re-created is one), so only what nothing fills shrinks it.
  const have = f.state.replicas.filter((r) => r.type === 'Worker').length;
  const added = s.plan.scaleOut.filter((e) => e.job === f.key).reduce((n, e) => n + e.add.length, 0);
  const removed = s.plan.scaleIn.filter((e) => e.job === f.key).reduce((n, e) => n + e.remove.length, 0);
  const shrink = Math.min(d.targetWorkers - (have - removed + added + replaced), d.targetWorkers - f.bounds.min);
  if (shrink <= 0) return;
  s.book.shrink(f.key, shrink);
  s.touched.add(f.key);
}

function wait(s: Step, w: Plan['waiting'][number]): void {
  if (known(s, w.job) === undefined) return;
  const reason = w.starving ? 'Starving' : 'Waiting';
  const news = s.book.wait(w.job, { reason, message: w.reason, starving: w.starving });
  if (news) s.touched.add(w.job);
  s.outcomes.push({ job: w.job, reason, message: w.reason, news });
}

/** Attained service reaches the status in steps (a restart restores it from there). */
function reportAttained(s: Step, f: JobFacts): void {
  const d = s.book.get(f.key);
  if (d === undefined || !attainedReportDue(d)) return;
  s.book.reportAttained(f.key);
  s.touched.add(f.key);
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
