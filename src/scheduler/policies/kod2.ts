// `kod2`: the paper's Algorithms 1–3 and placement rule, with the decisions of scheduling.md §5
// (real per-node packing for "fits", the starvation rule and its bound, dense worker indices,
// the (priority, weight, t_j, key) tie-break) and none of the §6 improvements, whatever the
// configuration's `improvements` say: the core pass with no plugin (lists.ts). Its actions:
//
//   admit-heads   lines 5–30: the top waiting job, directly or by Scale-In (Alg. 2), victims
//                 lowest weight first; else every waiting job that fits; a starving head holds
//                 the line (starvation, lines 27–29, is applied when ranks are computed)
//   scale-out     lines 31–36: Scale-Out (Alg. 3), heaviest first, nodes in name order
//   RQ → FQ (lines 37–40) is observed by the controller, not decided here (§5.7).
//
// Queues with quotas (not in the paper) add `reclaim-quota` and `reclaim-for-growth`, which do
// nothing without queues.

import { PLUGINS } from '../plugins/index.ts';
import { buildPass } from '../session/extension-points.ts';
import { runPass, type PassPolicy } from '../session/session.ts';
import { POLICY_LISTS } from './lists.ts';
import type { SchedulingPolicy } from './policy.ts';

export const KOD2_PASS: PassPolicy = buildPass(POLICY_LISTS.kod2, PLUGINS);

export const kod2Policy: SchedulingPolicy = {
  name: 'kod2',
  description: 'KOD2 (Jeong & Yu 2022): weight-based preemption by worker scale-in, scale-out into idle capacity, fewest-node placement',
  schedule: (snapshot, config) => runPass(snapshot, config, KOD2_PASS),
};
