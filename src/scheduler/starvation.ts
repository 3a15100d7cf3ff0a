// Starvation (scheduling.md §5.2): the paper's "if j waits longer than STARVELIMIT, update ω_j"
// made precise, with a bound on waiting.
//
// RULE. At a pass at time `now`, a waiting job j is starving iff now − t_j ≥ STARVELIMIT.
//   1. A starving job's effective weight is raised to the top: its logit is +∞ (reported ω = 1).
//      So it ranks above every non-starving job of its priority class, and starving jobs of one
//      class rank among themselves by t_j (then key): first come, first served. Priority classes
//      still dominate.
//   2. Its rank then passes Algorithm 1's line 5 against every running job of its class, and every
//      running job of its class or a lower class ranks below it, so Scale-In may take each of them
//      down to its minimum. The `ours` cool-down does not protect workers from a starving job.
//   3. Reservation: while the head of the waiting queue (the highest-ranked job that fits an empty
//      cluster) is starving and cannot be admitted, `kod2` admits no other job (Algorithm 1
//      handles only the head on line 5's branch). `ours` reserves for it the nodes S its minimum
//      configuration occupies on the empty cluster: other jobs are admitted (backfill) and workers
//      added (scale-out) only off S, and the head is also tried on S alone.
//
// BOUND. Assume: one priority class (or no job of a higher class than j's waits or runs after
// t_j + STARVELIMIT); passes run at least every Δ and after every job completion; every admitted
// job completes within R of its admission; j's minimum configuration fits on the cluster with no
// managed job running; jobs never return from running to waiting. Let k be the number of jobs
// with t < t_j (or t = t_j and a smaller key) still waiting at t_j + STARVELIMIT. Then j is
// admitted no later than
//
//        t_j + STARVELIMIT + Δ + (k + 1) · (R + Δ).
//
// Proof. By t_j + STARVELIMIT + Δ a pass has seen j starving. From then on every job ranked above
// j in the waiting queue has an earlier t (arrivals after t_j starve later, and rank behind j when
// they do), so at most k jobs are ever ahead of j, and their number only decreases. Consider the
// head h at any moment, and S its reserved nodes (`kod2`: take S = all nodes). While h waits,
// nothing new is placed on S (no admission, no scale-out), so the managed jobs on S are among
// those running when h became head, and each of them completes within R. So within R of h
// becoming head no managed replica is left on S, which then holds exactly what it holds in the
// empty cluster (other pods only). The next pass, within Δ, tries h on S alone (`kod2`: on the
// whole, now empty, cluster): the placement rule, walking S in the same order on the same idle
// resources, finds the placement it found on the empty cluster, and h is admitted, if Scale-In
// has not done so earlier. So each of the at most k jobs ahead of j, and then j itself, is
// admitted within R + Δ of becoming head.  ∎
//
// `ours`' curve-based rules do not enter the proof: growth before admission runs only in passes
// where no job starves, and neither the victim order (`preemptCheapestFirst`, which only reorders
// the same candidates) nor `preemptOnlyForGain` (never applied to a starving job) limits what a
// starving head may take.
//
// Suspension (`ours`, suspend.ts) breaks the assumption that jobs never return to the queue: a
// suspended job keeps its t_j, so one submitted more than STARVELIMIT ago is starving as soon as it
// is back in the queue, and its bound counts again from there (R + Δ per job ahead of it). That makes
// suspension of old jobs short-lived; restarting the clock at the suspension instead was measured no
// better on the Philly workloads (+0.1 % mean JCT over 16 jittered runs, philly-3 +5.7 % at seed 1;
// docs/simulation-results.md §1a′, "Upper bounds"), so t_j stays.
//
// The bound is tested in starvation.test.ts: a light job under a steady stream of heavier jobs,
// with and without aging, and a property over random arrival streams.

import type { SchedulerConfig } from './config.ts';
import type { JobSpec } from './types.ts';

export function isStarving(spec: JobSpec, now: number, config: SchedulerConfig): boolean {
  return now - spec.submittedAt >= config.starveLimitMs;
}

/** The logit used to rank a job in this pass: its heuristic logit, or +∞ once it starves. */
export function effectiveLogit(baseLogit: number, starving: boolean): number {
  return starving ? Number.POSITIVE_INFINITY : baseLogit;
}

/**
 * The bound above, for callers that want to assert or display it. `aheadCount` is k,
 * `maxRuntimeMs` R, `passIntervalMs` Δ.
 */
export function starvationWaitBound(config: SchedulerConfig, aheadCount: number, maxRuntimeMs: number, passIntervalMs: number): number {
  return config.starveLimitMs + passIntervalMs + (aheadCount + 1) * (maxRuntimeMs + passIntervalMs);
}
