// What every scheduling policy offers: one pure pass from a snapshot to a plan.

import type { SchedulerConfig } from '../config.ts';
import type { ClusterSnapshot, Plan, PolicyName } from '../types.ts';

export interface SchedulingPolicy {
  readonly name: PolicyName;
  /** One line for logs and reports. */
  readonly description: string;
  schedule(snapshot: ClusterSnapshot, config: SchedulerConfig): Plan;
}
