// Why a job is still waiting, in words an operator can act on (scheduling.md §6 "explainability"):
// what the job needs, what the cluster has for it, and which rule kept it out. Goes to the TFJob's
// status and Events, so `kubectl describe` answers "why is my job not running".
//
// Reasons are built after the pass's decisions, from the final idle resources, so "largest free
// slot" describes the cluster the job will actually face next.

import type { ClusterState } from './cluster-state.ts';
import type { InfeasibleReason } from './feasibility.ts';
import type { CompiledGroup, CompiledJob, RunningJob } from './job-model.ts';
import { maximumItems, type PlacementFailure, type PlacementItem } from './placement.ts';
import { formatResources, PODS } from './resources.ts';
import type { ScaleInStats } from './scale-in.ts';
import type { Resources, WaitingReason } from '../types.ts';

/** What happened to a waiting job in this pass. */
export type WaitOutcome =
  /** Its configuration cannot be placed even with no managed job running. */
  | {
      readonly kind: 'never-fits';
      readonly failure: PlacementFailure;
      readonly configuration: 'minimum' | 'maximum';
      /** The cluster with no managed job, which the failure refers to. */
      readonly emptyCluster: ClusterState;
    }
  /** It was the head (Alg. 1 line 5 held) but neither fitted nor could preempt enough. */
  | { readonly kind: 'head-blocked'; readonly failure: PlacementFailure; readonly scaleIn: ScaleInStats }
  /** Not tried: the head was handled instead (one admission per pass, or a starving head's reservation). */
  | { readonly kind: 'behind-head'; readonly head: CompiledJob; readonly reservation: boolean }
  /** Tried without preemption (Alg. 1 lines 18–26, or backfill) and did not fit. */
  | {
      readonly kind: 'no-room';
      readonly failure: PlacementFailure;
      readonly runningMax: RunningJob | undefined;
      readonly backfill: boolean;
      /** Backfilled around this starving job: its reserved nodes were off limits. */
      readonly reservedFor: string | undefined;
    }
  /** gang-fifo: the head of the queue, its gang at maximum size does not fit. */
  | { readonly kind: 'gang-blocked'; readonly failure: PlacementFailure }
  /** gang-fifo: behind the head in strict FIFO order. */
  | { readonly kind: 'gang-behind'; readonly head: CompiledJob }
  /**
   * Ordered baselines (tiresias, the oracles): its gang fits neither the free room nor the room of
   * the running jobs ordered after it; `order` names the order.
   */
  | { readonly kind: 'ordered-blocked'; readonly failure: PlacementFailure; readonly order: string }
  /** Its queue cannot take it: no quota left, an unknown queue, or a reason decided outside the core (`JobSpec.inadmissible`). */
  | { readonly kind: 'quota'; readonly why: string };

export function formatWeight(w: number): string {
  if (w === 1 || w === 0) return String(w);
  if (w > 0.99 || w < 0.01) return w.toPrecision(6);
  return w.toFixed(2);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '∞';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m}m`;
  return `${(m / 60).toFixed(1)}h`;
}

function requestedNames(r: Resources): string[] {
  return Object.keys(r).filter((k) => k !== PODS && (r[k] ?? 0) > 0);
}

/** `1 PS (1 cpu / 2Gi) + 2 Worker (2 cpu / 4Gi each) = 5 cpu / 10Gi`. */
export function describeConfiguration(items: readonly PlacementItem[]): string {
  const live = items.filter((it) => it.count > 0);
  const total: Record<string, number> = {};
  for (const it of live)
    for (const k of Object.keys(it.group.requests)) total[k] = (total[k] ?? 0) + (it.group.requests[k] ?? 0) * it.count;
  const parts = live.map((it) => {
    const each = formatResources(it.group.requests, requestedNames(it.group.requests));
    return `${it.count} ${it.group.type} (${each}${it.count > 1 ? ' each' : ''})`;
  });
  if (live.length === 1 && live[0]!.count === 1) return parts[0]!;
  return `${parts.join(' + ')} = ${formatResources(total, requestedNames(total))}`;
}

const REASON_WORDS: Record<InfeasibleReason, string> = {
  NotReady: 'NotReady',
  unschedulable: 'cordoned',
  taint: 'untolerated taint',
  nodeSelector: 'nodeSelector mismatch',
  nodeAffinity: 'node affinity mismatch',
};

function describeExclusions(state: ClusterState, group: CompiledGroup): string {
  const mask = state.masks.get(group.maskId);
  const parts = (Object.keys(REASON_WORDS) as InfeasibleReason[])
    .filter((k) => (mask.excluded[k] ?? 0) > 0)
    .map((k) => `${mask.excluded[k]} ${REASON_WORDS[k]}`);
  return `${state.nodes.length} nodes: ${parts.join(', ')}`;
}

/** "largest free slot on a node Worker may use is 1 cpu / 8Gi (node-3)". */
export function describeFreeSlot(state: ClusterState, group: CompiledGroup): string {
  const order = state.orderFor(group.maskId);
  if (order.length === 0) return `no ready node may run ${group.type}`;
  // A node at its pod limit (the kubelet's max pods) takes no pod, however much else it has free.
  const pods = state.dims.podsDim;
  const n = pods < 0 ? order[0] : order.find((node) => (state.idle[node * state.R + pods] ?? 0) >= 1);
  if (n === undefined) return `every node ${group.type} may use (${order.length}) is at its pod limit (max pods), none has a free pod slot`;
  const free = state.idleOf(n);
  const names = requestedNames(group.requests);
  return `largest free slot on a node ${group.type} may use is ${formatResources(free, names.length > 0 ? names : undefined)} (${state.nodes[n]!.name})`;
}

/**
 * The resources the group requests that no node has at all (e.g. nvidia.com/gpu before any GPU node
 * joins): said by name, since "largest free slot … 0 nvidia.com/gpu" hides that no node can ever help.
 */
function missingResources(state: ClusterState, group: CompiledGroup): string[] {
  return requestedNames(group.requests).filter((name) => {
    const d = state.dims.position(name);
    return d !== undefined && !(state.total[d]! > 0);
  });
}

export function describeFailure(state: ClusterState, failure: PlacementFailure): string {
  if (failure.kind === 'no-feasible-node') return `no node accepts ${failure.group.type} (${describeExclusions(state, failure.group)})`;
  const missing = missingResources(state, failure.group);
  if (missing.length > 0) return `no node has ${missing.join(' or ')} (${failure.group.type} requests it; ${state.nodes.length} nodes)`;
  const placedNote = failure.placed > 0 ? `room for only ${failure.placed} of ${failure.count} ${failure.group.type}; ` : '';
  return `${placedNote}${describeFreeSlot(state, failure.group)}`;
}

function weightWithClass(job: CompiledJob, aging: boolean): string {
  const notes = [...(aging && job.starving ? ['starving'] : []), ...(job.priority !== 0 ? [`priority ${job.priority}`] : [])];
  return `${formatWeight(aging ? job.weight : job.baseWeight)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
}

export interface ExplainContext {
  readonly state: ClusterState;
  readonly now: number;
  readonly starveLimitMs: number;
  /** Whether the policy applies the starvation rule (the baselines do not). */
  readonly aging: boolean;
  /** The job's configuration as the policy needs it (minimum, or maximum for gangs). */
  readonly items: readonly PlacementItem[];
  /**
   * Texts already written in this pass, for a pass that explains many jobs: their key says what
   * determines them (`itemsKey`: the placement cache key of `items`, e.g. `job.minimumKey`).
   */
  readonly texts?: ExplainTexts;
  readonly itemsKey?: string;
}

/**
 * The parts of reasons that many waiting jobs share, written once per pass: a configuration
 * depends only on its groups' types, requests and counts (what a placement cache key names), and
 * a placement failure only on the cluster state, its kind, group shape, and counts.
 */
export class ExplainTexts {
  readonly #configurations = new Map<string, string>();
  readonly #failures = new WeakMap<ClusterState, Map<string, string>>();

  configuration(key: string | undefined, items: readonly PlacementItem[]): string {
    if (key === undefined) return describeConfiguration(items);
    let text = this.#configurations.get(key);
    if (text === undefined) {
      text = describeConfiguration(items);
      this.#configurations.set(key, text);
    }
    return text;
  }

  failure(state: ClusterState, failure: PlacementFailure): string {
    let memo = this.#failures.get(state);
    if (memo === undefined) {
      memo = new Map();
      this.#failures.set(state, memo);
    }
    const g = failure.group;
    const key =
      failure.kind === 'no-feasible-node' ? `-|${g.type}|${g.shapeKey}` : `${g.type}|${g.shapeKey}|${failure.placed}|${failure.count}`;
    let text = memo.get(key);
    if (text === undefined) {
      text = describeFailure(state, failure);
      memo.set(key, text);
    }
    return text;
  }
}

/** The human-readable reason for a job left waiting. */
export function explainWaiting(job: CompiledJob, outcome: WaitOutcome, ctx: ExplainContext): string {
  const texts = ctx.texts;
  const failureText = (state: ClusterState, failure: PlacementFailure): string =>
    texts === undefined ? describeFailure(state, failure) : texts.failure(state, failure);
  const needs = `needs ${texts === undefined ? describeConfiguration(ctx.items) : texts.configuration(ctx.itemsKey, ctx.items)}`;
  const starving =
    ctx.aging && job.starving
      ? `starving (waited ${formatDuration(ctx.now - job.submittedAt)}, limit ${formatDuration(ctx.starveLimitMs)}); `
      : '';
  switch (outcome.kind) {
    case 'never-fits':
      return `${starving}${needs}; cannot be placed even with no other TFJob running: ${failureText(outcome.emptyCluster, outcome.failure)}`;
    case 'head-blocked': {
      const s = outcome.scaleIn;
      const kept = s.keptByRule > 0 ? `; ${s.keptByRule} more are kept for their jobs' performance targets` : '';
      const preempt =
        s.victimsConsidered === 0
          ? `no running job ranked below it${job.priority !== 0 ? ` in priority ≤ ${job.priority}` : ''} has workers above its minimum${s.protectedWorkers > 0 ? ` (${s.protectedWorkers} workers within the scale-out cool-down)` : ''}`
          : `removing ${s.removableWorkers} worker(s) of ${s.victimsConsidered} lower-ranked job(s) would not make room${s.protectedWorkers > 0 ? ` (${s.protectedWorkers} more within the scale-out cool-down)` : ''}`;
      return `${starving}${needs}; ${failureText(ctx.state, outcome.failure)}; weight ${weightWithClass(job, ctx.aging)} is the highest waiting, but ${preempt}${kept}`;
    }
    case 'behind-head': {
      const why = outcome.reservation
        ? `reserved for starving ${outcome.head.key}: no job is admitted before it`
        : `${outcome.head.key} (weight ${weightWithClass(outcome.head, ctx.aging)}) ranks higher and is handled first; one job per pass may preempt`;
      return `${starving}${needs}; waiting: ${why}`;
    }
    case 'no-room': {
      const rm = outcome.runningMax;
      const rank = outcome.backfill
        ? `weight ${weightWithClass(job, ctx.aging)}; tried without preemption behind the blocked head of the queue${outcome.reservedFor === undefined ? '' : `, off the nodes reserved for starving ${outcome.reservedFor}`}`
        : rm === undefined
          ? `weight ${weightWithClass(job, ctx.aging)}`
          : `weight ${weightWithClass(job, ctx.aging)} below running max ${weightWithClass(rm.job, ctx.aging)} (${rm.job.key}), so it may not preempt`;
      return `${starving}${needs}; ${failureText(ctx.state, outcome.failure)}; ${rank}`;
    }
    case 'gang-blocked':
      return `${needs} (all replicas at maximum size, at once); ${failureText(ctx.state, outcome.failure)}; head of the FIFO queue`;
    case 'gang-behind':
      return `${needs} (all replicas at maximum size, at once); waiting behind ${outcome.head.key} in strict FIFO order`;
    case 'ordered-blocked':
      return `${needs} (all replicas at maximum size, at once); ${failureText(ctx.state, outcome.failure)}, even with every job after it in ${outcome.order} order suspended`;
    case 'quota':
      return `${starving}${needs}; ${outcome.why}`;
  }
}

/**
 * The waiting reasons of a gang policy (each job at its maximum configuration, no aging), for the
 * jobs in `order` that have an outcome.
 */
export function gangWaitingReasons(
  order: readonly CompiledJob[],
  outcomes: ReadonlyMap<string, WaitOutcome>,
  ctx: Omit<ExplainContext, 'aging' | 'items'>,
): WaitingReason[] {
  const waiting: WaitingReason[] = [];
  for (const job of order) {
    const outcome = outcomes.get(job.key);
    if (outcome === undefined) continue;
    const reason = explainWaiting(job, outcome, { ...ctx, aging: false, items: maximumItems(job) });
    waiting.push({ job: job.key, weight: job.baseWeight, starving: false, reason });
  }
  return waiting;
}
