// Runs one scenario under several policies with the same bounds and horizon.
import { SIM_POLICY_REGISTRY, type SimPolicyName as PolicyName } from './policies/registry.ts';
import type { Scenario } from '../workloads/scenario.ts';
import type { LowerBounds } from './bounds.ts';
import type { ProgressStatus, SchedulePass, SimulationResult } from './engine.ts';
import type { Summary } from './figures.ts';
import { lowerBounds } from './bounds.ts';
import { simulate } from './engine.ts';
import { summarize } from './figures.ts';
import { queueSpecs } from '../workloads/teams.ts';
import type { CpuModelOptions } from './vertical/options.ts';

export interface PolicyRun {
  readonly policy: PolicyName;
  readonly result: SimulationResult;
  readonly summary: Summary;
}

export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly bounds: LowerBounds;
  readonly horizon: number;
  readonly runs: readonly PolicyRun[];
}

export interface RunOptions {
  readonly policies: readonly PolicyName[];
  readonly passFor: (policy: PolicyName) => SchedulePass;
  readonly onEvent?: (policy: PolicyName, status: ProgressStatus) => void;
  /** CPU limits, contention and a vertical rule (vertical/); absent: CPU is not modelled. */
  readonly cpu?: CpuModelOptions;
}

/** One policy on one scenario: the scenario's own simulation options, the registry's oracle flag. */
export function simulatePolicy(
  scenario: Scenario,
  policy: PolicyName,
  schedule: SchedulePass,
  horizonSeconds: number,
  onEvent?: (status: ProgressStatus) => void,
  cpu?: CpuModelOptions,
): SimulationResult {
  const { definition } = scenario;
  return simulate({
    cluster: scenario.cluster,
    jobs: scenario.jobs,
    schedule,
    startupSeconds: definition.startupSeconds,
    tickSeconds: definition.tickSeconds,
    horizonSeconds,
    declareScalingCurves: definition.declareScalingCurves,
    suspendable: definition.suspendable,
    queues: queueSpecs(definition.queues),
    oracle: SIM_POLICY_REGISTRY[policy].oracle,
    ...(onEvent === undefined ? {} : { onEvent }),
    ...(cpu === undefined ? {} : { cpu }),
  });
}

export function runScenario(scenario: Scenario, options: RunOptions): ScenarioRun {
  const { definition } = scenario;
  const bounds = lowerBounds(scenario.jobs, scenario.cluster, definition.startupSeconds);
  const horizon = definition.horizonFactor * bounds.makespan;
  const runs = options.policies.map((policy): PolicyRun => {
    const onEvent = options.onEvent === undefined ? undefined : (status: ProgressStatus) => options.onEvent?.(policy, status);
    const result = simulatePolicy(scenario, policy, options.passFor(policy), horizon, onEvent, options.cpu);
    return { policy, result, summary: summarize(result, bounds) };
  });
  return { scenario, bounds, horizon, runs };
}
