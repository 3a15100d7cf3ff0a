// `ours`: `kod2` plus the improvements of scheduling.md §6 that `config.improvements` enables (all
// by default): scale-out onto the PS's nodes first, then the most idle; a scale-out cool-down
// (hysteresis against preempting what was just grown); a stop at the knee of a declared scaling
// curve; no needless preemption; scale-in on nodes the waiting job can use first; backfill behind a
// blocked, non-starving head; several admissions per pass. Every waiting job gets a reason (as in
// all policies). Each toggle can be switched off alone, so the simulator can measure each one.

import type { SchedulingPolicy } from './policy.ts';
import { runPreemptivePass } from './preemptive.ts';

export const oursPolicy: SchedulingPolicy = {
  name: 'ours',
  description: 'KOD2 plus PS-affine scale-out, scale-out cool-down, scaling-knee stop, minimal preemption, backfill, multi-admission',
  schedule: (snapshot, config) => runPreemptivePass(snapshot, config, config.improvements),
};
