// What every scheduling policy offers: one pure pass from a snapshot to a plan.

import type { SchedulerConfig } from '../config.ts';
import type { ClusterSnapshot, Plan } from '../types.ts';

export interface SchedulingPolicy {
  /** Its registry name: a `PolicyName`, or a simulator baseline's (lab/simulator/policies/). */
  readonly name: string;
  /** One line for logs and reports. */
  readonly description: string;
  schedule(snapshot: ClusterSnapshot, config: SchedulerConfig): Plan;
}
