// The decide stage of a scheduling pass: the pure core decides. The policy plans admissions,
// preemptions (scale-in) and scale-out; repair planning then places the replicas that running jobs lost
// on what the plan leaves idle. Nothing here knows about Kubernetes: the same calls run in the
// simulator.
import {
  idleAfterPlan,
  planRepairs,
  subtractResources,
  type Resources,
  schedule,
  type ClusterSnapshot,
  type NodeInfo,
  type Plan,
  type RepairPlacement,
  type SchedulerConfig,
  type PlacingPolicyName,
} from '../../../scheduler/index.ts';
import type { JobFacts } from './snapshot.ts';

export interface Decided {
  readonly plan: Plan;
  readonly repairs: readonly RepairPlacement[];
}

export function decide(
  policy: PlacingPolicyName,
  snapshot: ClusterSnapshot,
  facts: readonly Pick<JobFacts, 'key' | 'elastic' | 'missing'>[],
  config: SchedulerConfig,
  preferredNode?: (job: string) => string | undefined,
): Decided {
  const planned = fixedJobsNotGrown(schedule(policy, snapshot, config), facts);
  // A job whose worker SpeCon is moving gets that slot back from the repair step, on the target: a
  // scale-out of the same slot in this pass could bind it elsewhere first.
  const plan =
    preferredNode === undefined ? planned : { ...planned, scaleOut: planned.scaleOut.filter((s) => preferredNode(s.job) === undefined) };
  const repairs = planRepairs(
    snapshot,
    plan,
    facts.flatMap((f) => f.missing),
    preferredNode,
  );
  return { plan, repairs };
}

/**
 * The core grows any running job below its maximum, also a fixed-size one that lost a worker pod;
 * apply ignores such a scale-out (a fixed worker comes back by name, as a repair), so it must not
 * take the room that repair needs either, or the worker would wait for a second slot forever.
 */
export function fixedJobsNotGrown(plan: Plan, facts: readonly Pick<JobFacts, 'key' | 'elastic'>[]): Plan {
  const elastic = new Set(facts.filter((f) => f.elastic).map((f) => f.key));
  const scaleOut = plan.scaleOut.filter((e) => elastic.has(e.job));
  return scaleOut.length === plan.scaleOut.length ? plan : { ...plan, scaleOut };
}

/** The nodes of the last pass and what it left idle on each (pods in flight counted): SpeCon's room check. */
export interface ClusterView {
  readonly nodes: readonly NodeInfo[];
  readonly idle: ReadonlyMap<string, Resources>;
}

/** How SpeCon's migrations meet the pass: where a job's replacement should go, and the pass's room. */
export interface MigrationHook {
  preferredNode(job: string): string | undefined;
  passed(view: ClusterView): void;
}

/** What a pass leaves idle on each usable node once its plan and its repairs are in place. */
export function idleAfterRepairs(snapshot: ClusterSnapshot, decided: Decided): Map<string, Resources> {
  const idle = idleAfterPlan(snapshot, decided.plan);
  for (const r of decided.repairs) {
    const free = idle.get(r.node);
    if (free !== undefined) idle.set(r.node, subtractResources(free, r.replica.group.requests));
  }
  return idle;
}
