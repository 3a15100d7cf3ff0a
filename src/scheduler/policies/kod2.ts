// `kod2`: the paper's Algorithms 1–3 and placement rule, with the decisions of scheduling.md §5
// (real per-node packing for "fits", the starvation rule and its bound, dense worker indices,
// the (priority, weight, t_j, key) tie-break) and none of the §6 improvements, whatever the
// configuration's `improvements` say.

import { NO_IMPROVEMENTS } from '../config.ts';
import type { SchedulingPolicy } from './policy.ts';
import { runPreemptivePass } from './preemptive.ts';

export const kod2Policy: SchedulingPolicy = {
  name: 'kod2',
  description: 'KOD2 (Jeong & Yu 2022): weight-based preemption by worker scale-in, scale-out into idle capacity, fewest-node placement',
  schedule: (snapshot, config) => runPreemptivePass(snapshot, config, NO_IMPROVEMENTS),
};
