// The real scheduling core, bound to a policy: the simulator must run exactly what the operator
// runs, so this is the only scheduler the CLI uses.
import type { PolicyName } from '../scheduler/types.ts';
import type { SchedulerConfig } from '../scheduler/config.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../scheduler/config.ts';
import { getPolicy, schedule } from '../scheduler/index.ts';
import type { SchedulePass } from './engine.ts';

export const SCHEDULER_CONFIG: SchedulerConfig = DEFAULT_SCHEDULER_CONFIG;

export function corePass(policy: PolicyName, config: SchedulerConfig = SCHEDULER_CONFIG): SchedulePass {
  const resolved = getPolicy(policy);
  return (snapshot) => schedule(resolved, snapshot, config);
}
