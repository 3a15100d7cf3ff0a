// The policies the operator runs, in one place: each implementation and what the rest of the project
// needs to know about it. The CLI and config validation (`--policy`), the simulator and the benchmarks
// (which add their own baselines, lab/simulator/policies/) and the docs (the policy table) are derived
// from this list; adding a policy means adding an entry here, nothing else.
import type { PolicyName } from '../types.ts';
import { kod2Policy } from './kod2.ts';
import { oursPolicy } from './ours.ts';
import type { SchedulingPolicy } from './policy.ts';
import { tfOperatorPolicy } from './tf-operator.ts';

export interface PolicyEntry {
  readonly policy: SchedulingPolicy;
  /**
   * The operator places every pod itself (spec.nodeName) and keeps a queue; otherwise pods go to
   * kube-scheduler as tf-operator sends them.
   */
  readonly placesPods: boolean;
}

/** The registry, in the order reports list policies (baseline first). */
export const POLICY_REGISTRY = {
  'tf-operator': { policy: tfOperatorPolicy, placesPods: false },
  kod2: { policy: kod2Policy, placesPods: true },
  ours: { policy: oursPolicy, placesPods: true },
} as const satisfies Readonly<Record<PolicyName, PolicyEntry>>;

type Registry = typeof POLICY_REGISTRY;

/** Policies the operator runs (`--policy`): every policy of the registry. */
export type OperatorPolicyName = PolicyName;
/** Policies under which the operator queues jobs and places their pods itself. */
export type PlacingPolicyName = { [K in PolicyName]: Registry[K]['placesPods'] extends true ? K : never }[PolicyName];

export const POLICY_NAMES = Object.keys(POLICY_REGISTRY) as readonly PolicyName[];

/** The operator's default policy. */
export const DEFAULT_OPERATOR_POLICY = 'ours' satisfies OperatorPolicyName;

/** The operator's policies: its default first, then the other placing ones, then the others. */
export const OPERATOR_POLICY_NAMES: readonly [OperatorPolicyName, ...OperatorPolicyName[]] = [
  DEFAULT_OPERATOR_POLICY,
  ...POLICY_NAMES.filter((n) => n !== DEFAULT_OPERATOR_POLICY).sort(
    (a, b) => Number(POLICY_REGISTRY[b].placesPods) - Number(POLICY_REGISTRY[a].placesPods),
  ),
];

export function isPolicyName(name: string): name is PolicyName {
  return Object.hasOwn(POLICY_REGISTRY, name);
}

export function isPlacingPolicy(name: OperatorPolicyName): name is PlacingPolicyName {
  return POLICY_REGISTRY[name].placesPods;
}

export function getPolicy(name: PolicyName): SchedulingPolicy {
  // Guards callers that bypass the type (a policy name read from a flag or a config file).
  if (!isPolicyName(name)) throw new Error(`unknown scheduling policy "${name as string}"; expected one of ${POLICY_NAMES.join(', ')}`);
  return POLICY_REGISTRY[name].policy;
}

/** `name: description` lines, for --help texts and docs. */
export function describePolicies(names: readonly PolicyName[] = POLICY_NAMES): string[] {
  return names.map((n) => `${n}: ${POLICY_REGISTRY[n].policy.description}`);
}
