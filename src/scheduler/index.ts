// The scheduling core's entry point. Pure and deterministic: `schedule(policy, snapshot, config)`
// reads nothing but its arguments (time is `snapshot.now`), never mutates them, and returns the
// same plan for the same input however the snapshot's arrays are ordered.

import { DEFAULT_SCHEDULER_CONFIG } from './config.ts';
import type { SchedulerConfig } from './config.ts';
import { gangFifoPolicy } from './policies/gang-fifo.ts';
import { kod2Policy } from './policies/kod2.ts';
import { oursPolicy } from './policies/ours.ts';
import type { SchedulingPolicy } from './policies/policy.ts';
import { tfOperatorPolicy } from './policies/tf-operator.ts';
import type { ClusterSnapshot, Plan, PolicyName } from './types.ts';

const POLICIES: Readonly<Record<PolicyName, SchedulingPolicy>> = {
  'tf-operator': tfOperatorPolicy,
  'gang-fifo': gangFifoPolicy,
  kod2: kod2Policy,
  ours: oursPolicy,
};

export const POLICY_NAMES: readonly PolicyName[] = ['tf-operator', 'gang-fifo', 'kod2', 'ours'];

export function isPolicyName(name: string): name is PolicyName {
  return Object.hasOwn(POLICIES, name);
}

export function getPolicy(name: PolicyName): SchedulingPolicy {
  // Guards callers that bypass the type (a policy name read from a flag or a config file).
  if (!isPolicyName(name)) throw new Error(`unknown scheduling policy "${name as string}"; expected one of ${POLICY_NAMES.join(', ')}`);
  return POLICIES[name];
}

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
export type { ImprovementToggles, SchedulerConfig, SchedulerConfigInput, SchedulerConfigOverrides, WeightConfig } from './config.ts';
export { clusterAllocatable, clusterShare, compareRank, jobWeight, minimumRequests, sigmoid } from './weight.ts';
export type { JobWeight, RankKey } from './weight.ts';
export { isStarving, starvationWaitBound } from './starvation.ts';
export { isNodeFeasible, nodeFeasibility, toleratesTaint, nodeSelectorTermsMatch } from './feasibility.ts';
export type { InfeasibleReason } from './feasibility.ts';
export { addResources, dominantShare, fitsIn, formatResources, subtractResources } from './resources.ts';
export { hostWeights, idleAfterPlan, placeMissing, planRepairs } from './repair.ts';
export type { MissingReplica, RepairPlacement } from './repair.ts';
