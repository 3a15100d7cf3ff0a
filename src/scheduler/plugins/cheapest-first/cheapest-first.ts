// The victim order of `cheapest-first`: the room for a head comes from where a worker costs the least
// speed (model/gain.ts), within the candidates KOD2 allows.
import type { ClusterState } from '../../model/cluster-state.ts';
import { workerGainDensity } from '../../model/gain.ts';
import type { RunningJob } from '../../model/job-model.ts';
import type { VictimOrder } from '../../session/session.ts';

/**
 * `preemptCheapestFirst`: by priority class, lowest first, then by what the victim's next worker
 * adds per unit of share, least first (unknown last), then rank.
 */
export const cheapestFirst: VictimOrder = (state: ClusterState, ranked: readonly RunningJob[]): RunningJob[] => {
  const loss = new Float64Array(ranked.length);
  for (let i = 0; i < ranked.length; i++) {
    const r = ranked[i]!;
    loss[i] =
      (r.job.workers === undefined ? undefined : workerGainDensity(state, r.job.workers, r.workers.length)) ?? Number.POSITIVE_INFINITY;
  }
  const order = (a: number, b: number): number => ranked[a]!.job.priority - ranked[b]!.job.priority || loss[a]! - loss[b]! || a - b;
  // Rank order is already by class; without scaling curves every loss is unknown, so the list is
  // usually in order already and needs no sort (nor an object per job to sort by).
  let sorted = true;
  for (let k = 1; k < ranked.length && sorted; k++) sorted = order(k - 1, k) <= 0;
  if (sorted) return [...ranked];
  return Array.from(ranked.keys())
    .sort(order)
    .map((i) => ranked[i]!);
};
