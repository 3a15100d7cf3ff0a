// Growth-efficiency proportional scale-out (FlowCon Algorithm 1 at worker granularity; shared docs
// related-papers §6 F3; `growByEfficiency`, ours). Before plain scale-out hands idle room out by
// rank, the jobs that are still learning fast get it in proportion to how fast:
//
//   candidates: among the running jobs that may still grow, those of the highest priority class and,
//               within it, the best rank band (rank is class first, then band: a job of a lower
//               class or a demoted one never goes before one that ranks above it), whose own
//               progress signal says Progressing with a growth > 0 (relative improvement per
//               relative progress, src/progress/signals/phase.ts);
//   efficiency: E_j = growth_j / R_j, R_j = w_j · r_j (workers × one worker's normalised size):
//               FlowCon's growth per unit of resource held;
//   shares:     one worker at a time to the job with the largest E_j / (a_j + 1), a_j the workers
//               it already received here (highest-averages apportionment: the workers handed out
//               end up about proportional to E_j), each within the limit plain scale-out would
//               give it (knee, quotas, a starving job's room).
// Jobs of that class and band without a signal (or Slowing) therefore grow after them; every other
// job, and whatever room is left, goes to plain scale-out after this, in rank order, as before.
// When the top class and band hold no Progressing job, this does nothing. Uses only the progress
// lines the jobs print.

import type { ClusterState } from './cluster-state.ts';
import type { LiveReplica, RunningJob } from './job-model.ts';
import { scaleOut, scaleOutLimit, type ScaleOutOptions } from './scale-out.ts';

interface Candidate {
  readonly r: RunningJob;
  readonly efficiency: number;
  granted: number;
}

/** E_j of a running job, or undefined when it does not take part (no signal, not Progressing). */
export function growthEfficiency(state: ClusterState, r: RunningJob): number | undefined {
  const progress = r.job.state.progress;
  const wg = r.job.workers;
  if (wg === undefined || progress?.phase !== 'Progressing' || progress.growth === undefined || !(progress.growth > 0)) return undefined;
  const held = Math.max(1, r.workers.length) * state.normalizedSize(wg.vec);
  return held > 0 ? progress.growth / held : undefined;
}

export function growByEfficiency(
  state: ClusterState,
  running: readonly RunningJob[],
  now: number,
  opts: ScaleOutOptions,
  onGrow: (job: RunningJob, added: readonly LiveReplica[]) => void,
): void {
  const growable = running.filter(
    (r) =>
      r.job.workers !== undefined && !(opts.skipJobsScaledInThisPass && r.scaledInThisPass) && scaleOutLimit(r, opts) > r.workers.length,
  );
  if (growable.length === 0) return;
  let topPriority = Number.NEGATIVE_INFINITY;
  for (const r of growable) topPriority = Math.max(topPriority, r.job.priority);
  let topBand = Number.POSITIVE_INFINITY;
  for (const r of growable) if (r.job.priority === topPriority) topBand = Math.min(topBand, r.job.band);
  const open: Candidate[] = [];
  for (const r of growable) {
    if (r.job.priority !== topPriority || r.job.band !== topBand) continue;
    const efficiency = growthEfficiency(state, r);
    if (efficiency !== undefined) open.push({ r, efficiency, granted: 0 });
  }
  while (open.length > 0) {
    let best = 0;
    for (let i = 1; i < open.length; i++) {
      const a = open[i]!;
      const b = open[best]!;
      const qa = a.efficiency / (a.granted + 1);
      const qb = b.efficiency / (b.granted + 1);
      if (qa > qb || (qa === qb && a.r.job.key < b.r.job.key)) best = i;
    }
    const c = open[best]!;
    const before = c.r.workers.length;
    scaleOut(
      state,
      [c.r],
      now,
      { ...opts, limitFor: (job, limit) => Math.min(before + 1, opts.limitFor === undefined ? limit : opts.limitFor(job, limit)) },
      onGrow,
    );
    if (c.r.workers.length > before) c.granted += 1;
    else open.splice(best, 1);
  }
}
