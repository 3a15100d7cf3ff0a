// The decide stage of a scheduling pass: the pure core decides. The policy plans admissions,
// preemptions (scale-in) and scale-out; repair planning then places the replicas that running jobs lost
// on what the plan leaves idle. Nothing here knows about Kubernetes: the same calls run in the
// simulator.
import {
  planRepairs,
  schedule,
  type ClusterSnapshot,
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

export function decide(policy: PlacingPolicyName, snapshot: ClusterSnapshot, facts: readonly JobFacts[], config: SchedulerConfig): Decided {
  const plan = schedule(policy, snapshot, config);
  const repairs = planRepairs(
    snapshot,
    plan,
    facts.flatMap((f) => f.missing),
  );
  return { plan, repairs };
}
