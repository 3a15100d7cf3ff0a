// The real scheduling core, bound to a policy: the simulator must run exactly what the operator
// runs, so this is the only scheduler the CLI uses.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ZodError } from 'zod';
import type { SchedulerConfig } from '../../src/scheduler/config.ts';
import { DEFAULT_SCHEDULER_CONFIG, parseSchedulerConfig } from '../../src/scheduler/config.ts';
import { getSimPolicy, schedule, type SimPolicyName } from './policies/registry.ts';
import { describeIssues } from '../workloads/scenario-schema.ts';
import type { SchedulePass } from './engine.ts';

export function corePass(policy: SimPolicyName, config: SchedulerConfig = DEFAULT_SCHEDULER_CONFIG): SchedulePass {
  const resolved = getSimPolicy(policy);
  return (snapshot) => schedule(resolved, snapshot, config);
}

/** A user-written scheduler configuration was unreadable or invalid. */
export class SchedulerConfigError extends Error {
  override name = 'SchedulerConfigError';
}

/**
 * Reads a (partial) scheduler configuration, YAML or JSON, validated by the core's own schema;
 * missing fields take the core's defaults. Without a file: the defaults.
 */
export function readSchedulerConfig(file: string | undefined): SchedulerConfig {
  if (file === undefined) return DEFAULT_SCHEDULER_CONFIG;
  try {
    return parseSchedulerConfig(parseYaml(readFileSync(file, 'utf8')));
  } catch (error) {
    if (error instanceof ZodError) {
      throw new SchedulerConfigError(`scheduler config ${file} is invalid:\n${describeIssues(error)}`);
    }
    throw new SchedulerConfigError(`scheduler config ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
