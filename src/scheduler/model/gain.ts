// Throughput per resource from declared scaling curves (`ours`: `preemptCheapestFirst`,
// `growBeforeAdmit`). One currency for every job: its normalised speed s(k) = curve(k) / curve(max),
// the fraction of its full-width speed it runs at with k workers (on the fewest nodes), so a job
// at s = 0.5 finishes its remaining work in twice its ideal time. A resource spent on a job is
// worth the normalised speed it buys there per unit of cluster share (the same sum of
// request / cluster allocatable over resources as the weight's share_j). Moving resources from a
// job where they buy less to one where they buy more raises the cluster's total normalised speed,
// the rate at which jobs get through their ideal runtimes; moving them the other way only reorders
// work, and costs start-ups. For near-linear scaling the PS a new job needs is pure overhead, so a
// running job's next worker usually buys more than a new job's minimum configuration: width
// first, FIFO-like; past a job's knee (or when a PS saturates) the new job buys more: breadth.
// A job without a curve, or a count beyond its curve, has no known value: callers then keep
// KOD2's behaviour.

import type { ClusterState } from './cluster-state.ts';
import type { CompiledJob, CompiledWorkers } from './job-model.ts';

/** s(k): throughput with k workers ÷ throughput at the maximum (or at the curve's last point); undefined when unknown. */
export function normalisedSpeed(workers: CompiledWorkers, k: number): number | undefined {
  const curve = workers.scalingCurve;
  if (curve === undefined || curve.length === 0) return undefined;
  if (k <= 0) return 0;
  if (k > curve.length) return undefined;
  const top = curve[Math.min(workers.max, curve.length) - 1]!;
  if (!(top > 0)) return undefined;
  return curve[k - 1]! / top;
}

/** Normalised speed the k-th worker adds (s(k) − s(k − 1)) per unit of its cluster share; undefined when unknown. */
export function workerGainDensity(state: ClusterState, workers: CompiledWorkers, k: number): number | undefined {
  const hi = normalisedSpeed(workers, k);
  const lo = normalisedSpeed(workers, k - 1);
  if (hi === undefined || lo === undefined) return undefined;
  const size = state.normalizedSize(workers.vec);
  if (!(size > 0)) return undefined;
  return (hi - lo) / size;
}

/**
 * Normalised speed of the job's minimum configuration per unit of its cluster share (fixed
 * replicas included: a PS computes nothing but takes room); undefined when unknown (no worker
 * group or no curve).
 */
export function admissionGainDensity(state: ClusterState, job: CompiledJob): number | undefined {
  const w = job.workers;
  if (w === undefined) return undefined;
  const s = normalisedSpeed(w, w.min);
  if (s === undefined) return undefined;
  let size = w.min * state.normalizedSize(w.vec);
  for (const g of job.fixed) size += g.count * state.normalizedSize(g.vec);
  if (!(size > 0)) return undefined;
  return s / size;
}

/**
 * How many workers a running job may grow to before admission: while each next worker adds more
 * than `threshold` (the best a waiting job's admission would buy); never beyond `limit`.
 */
export function growBeforeAdmitLimit(
  state: ClusterState,
  workers: CompiledWorkers,
  current: number,
  limit: number,
  threshold: number,
): number {
  let k = current;
  while (k < limit) {
    const d = workerGainDensity(state, workers, k + 1);
    if (d === undefined || !(d > threshold)) break;
    k++;
  }
  return k;
}
