// Every policy the simulator compares: the operator's (src/scheduler/policies/registry.ts) plus the
// baselines that exist only for comparisons (gang-fifo, tiresias, the clairvoyant oracles), which
// the operator never runs. The simulator, the benchmarks and hack/decision-fingerprint.ts derive
// their policy lists from this one.
import { POLICY_REGISTRY } from '../../../src/scheduler/policies/registry.ts';
import type { SchedulingPolicy } from '../../../src/scheduler/policies/policy.ts';
import { DEFAULT_SCHEDULER_CONFIG, type SchedulerConfig } from '../../../src/scheduler/config.ts';
import type { ClusterSnapshot, Plan } from '../../../src/scheduler/types.ts';
import { schedule as coreSchedule } from '../../../src/scheduler/index.ts';
import { gangFifoPolicy } from './gang-fifo.ts';
import { srsfOraclePolicy, srtfOraclePolicy } from './oracles.ts';
import { tiresiasPolicy } from './tiresias.ts';

export interface SimPolicyEntry {
  readonly policy: SchedulingPolicy;
  /** The operator runs it too (`--policy`). */
  readonly inOperator: boolean;
  /** Knows what a real operator cannot (a job's remaining work, `OracleJobState`); for comparisons only. */
  readonly oracle: boolean;
}

const operator = (name: keyof typeof POLICY_REGISTRY): SimPolicyEntry => ({
  policy: POLICY_REGISTRY[name].policy,
  inOperator: true,
  oracle: false,
});

/** The simulator's registry, in the order reports list policies (baseline first). */
export const SIM_POLICY_REGISTRY = {
  'tf-operator': operator('tf-operator'),
  'gang-fifo': { policy: gangFifoPolicy, inOperator: false, oracle: false },
  kod2: operator('kod2'),
  ours: operator('ours'),
  tiresias: { policy: tiresiasPolicy, inOperator: false, oracle: false },
  'srtf-oracle': { policy: srtfOraclePolicy, inOperator: false, oracle: true },
  'srsf-oracle': { policy: srsfOraclePolicy, inOperator: false, oracle: true },
} as const satisfies Readonly<Record<string, SimPolicyEntry>>;

export type SimPolicyName = keyof typeof SIM_POLICY_REGISTRY;

export const SIM_POLICY_NAMES = Object.keys(SIM_POLICY_REGISTRY) as readonly SimPolicyName[];

export function isSimPolicyName(name: string): name is SimPolicyName {
  return Object.hasOwn(SIM_POLICY_REGISTRY, name);
}

export function getSimPolicy(name: SimPolicyName): SchedulingPolicy {
  // Guards callers that bypass the type (a policy name read from a flag or a file).
  if (!isSimPolicyName(name)) {
    throw new Error(`unknown scheduling policy "${name as string}"; expected one of ${SIM_POLICY_NAMES.join(', ')}`);
  }
  return SIM_POLICY_REGISTRY[name].policy;
}

/** One scheduling pass of any policy the simulator knows (the core's `schedule` for the operator's). */
export function schedule(
  policy: SimPolicyName | SchedulingPolicy,
  snapshot: ClusterSnapshot,
  config: SchedulerConfig = DEFAULT_SCHEDULER_CONFIG,
): Plan {
  return coreSchedule(typeof policy === 'string' ? getSimPolicy(policy) : policy, snapshot, config);
}
