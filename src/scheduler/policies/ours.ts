// `ours`: `kod2` plus the improvements of scheduling.md §6 that `config.improvements` enables (all
// but `preemptOnlyForGain` by default): scale-out onto the PS's nodes first, then the fullest nodes
// with room (packing); a scale-out cool-down (hysteresis against preempting what was just grown);
// a stop at the knee of a declared scaling curve; no needless preemption; scale-in on nodes the
// waiting job can use first; backfill behind a blocked, non-starving head; several admissions per
// pass; and, from declared scaling curves (gain.ts), growth of running jobs before admission where
// a worker buys more speed per resource than a new job would, and preemption of the workers that
// add least first (opt-in: only when the waiting job gains more); demotion of jobs that have held
// much service (Tiresias's two queues) or whose own progress signal says Converged (FlowCon/SpeCon),
// and suspension of whole demoted jobs that opted in when scale-in cannot admit the head
// (suspend.ts). Every waiting job gets a reason
// (as in all policies). Each toggle can be switched off alone, so the simulator can measure each
// one (docs/simulation-results.md).

import type { SchedulingPolicy } from './policy.ts';
import { runPreemptivePass } from './preemptive.ts';

export const oursPolicy: SchedulingPolicy = {
  name: 'ours',
  description:
    'KOD2 plus PS-affine packing scale-out, cool-down, scaling-knee stop, growth before admission and cheapest-first preemption by scaling curve, minimal preemption, backfill, multi-admission, attained-service and Converged demotion, suspension of demoted checkpointing jobs',
  schedule: (snapshot, config) => runPreemptivePass(snapshot, config, config.improvements),
};
