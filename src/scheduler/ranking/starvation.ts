// Starvation (docs/scheduling.md §5.2): the paper's "if j waits longer than STARVELIMIT, update ω_j"
// made precise, with a bound on waiting. A waiting job is starving once it has waited STARVELIMIT;
// it then ranks first in its priority class (logit +∞, first come first served among the starving),
// may scale in every running job of its class down to its minimum, and is reserved room: `kod2`
// admits nothing else while it is the blocked head, `ours` places others only off the nodes its
// minimum would take on the empty cluster. The bound this gives, its proof, and why a suspended job
// keeps its t_j are in docs/scheduling.md §5.2; starvation.test.ts tests the bound.

import type { SchedulerConfig } from '../config.ts';
import type { JobSpec } from '../types.ts';

/** Whether the job has waited STARVELIMIT since its submission (t_j; a suspended job keeps its t_j). */
export function isStarving(spec: JobSpec, now: number, config: SchedulerConfig): boolean {
  return now - spec.submittedAt >= config.starveLimitMs;
}

/** The logit used to rank a job in this pass: its heuristic logit, or +∞ once it starves. */
export function effectiveLogit(baseLogit: number, starving: boolean): number {
  return starving ? Number.POSITIVE_INFINITY : baseLogit;
}

/**
 * The bound of docs/scheduling.md §5.2, for callers that want to assert or display it. `aheadCount` is k,
 * `maxRuntimeMs` R, `passIntervalMs` Δ.
 */
export function starvationWaitBound(config: SchedulerConfig, aheadCount: number, maxRuntimeMs: number, passIntervalMs: number): number {
  return config.starveLimitMs + passIntervalMs + (aheadCount + 1) * (maxRuntimeMs + passIntervalMs);
}
