// The scheduling core's entry point. Pure and deterministic: `schedule(policy, snapshot, config)`
// reads nothing but its arguments (time is `snapshot.now`), never mutates them, and returns the
// same plan for the same input however the snapshot's arrays are ordered.

import { DEFAULT_SCHEDULER_CONFIG } from './config.ts';
import type { SchedulerConfig } from './config.ts';
import { getPolicy } from './policies/registry.ts';
import type { SchedulingPolicy } from './policies/policy.ts';
import type { ClusterSnapshot, Plan, PolicyName } from './types.ts';

export {
  POLICY_NAMES,
  POLICY_REGISTRY,
  DEFAULT_OPERATOR_POLICY,
  OPERATOR_POLICY_NAMES,
  describePolicies,
  getPolicy,
  isPlacingPolicy,
  isPolicyName,
} from './policies/registry.ts';
export type { OperatorPolicyName, PlacingPolicyName, PolicyEntry } from './policies/registry.ts';

/** One scheduling pass of `policy` over `snapshot`. */
export function schedule(
  policy: PolicyName | SchedulingPolicy,
  snapshot: ClusterSnapshot,
  config: SchedulerConfig = DEFAULT_SCHEDULER_CONFIG,
): Plan {
  const p = typeof policy === 'string' ? getPolicy(policy) : policy;
  return p.schedule(snapshot, config);
}

export type * from './types.ts';
export type { SchedulingPolicy } from './policies/policy.ts';
export {
  DEFAULT_IMPROVEMENTS,
  DEFAULT_SCHEDULER_CONFIG,
  DEFAULT_WEIGHT_CONFIG,
  NO_IMPROVEMENTS,
  parseSchedulerConfig,
  resolveSchedulerConfig,
  schedulerConfigSchema,
} from './config.ts';
export type { ImprovementToggles, SchedulerConfig, SchedulerConfigOverrides, WeightConfig } from './config.ts';
export { clusterAllocatable, clusterShare, compareRank, jobWeight, minimumRequests, sigmoid } from './ranking/weight.ts';
export type { JobWeight, RankKey } from './ranking/weight.ts';
export { isStarving, starvationWaitBound } from './ranking/starvation.ts';
export { isNodeFeasible, nodeFeasibility, toleratesTaint, nodeSelectorTermsMatch } from './model/feasibility.ts';
export type { InfeasibleReason } from './model/feasibility.ts';
export { addResources, dominantShare, fitsIn, formatResources, subtractResources } from './model/resources.ts';
export { hostWeights, idleAfterPlan, placeMissing, planRepairs } from './model/repair.ts';
export { summarizeQueues } from './queues/queue-summary.ts';
export type { QueueHeadEntry, QueueSummary } from './queues/queue-summary.ts';
export type { MissingReplica, RepairPlacement } from './model/repair.ts';
