// Step time of a Philly job from where its workers run, and the iterations it needs.
import type { PhillyApp, StepSample } from './app.ts';
import { smallestRotation } from './app.ts';

export interface StepTime {
  readonly stepTime: number;
  readonly syncTime: number;
}

function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

function lerpStep(a: StepTime, b: StepTime, f: number): StepTime {
  return { stepTime: lerp(a.stepTime, b.stepTime, f), syncTime: lerp(a.syncTime, b.syncTime, f) };
}

/**
 * Step time at `localBatch` from samples sorted by local batch: linear between neighbours, linear
 * extrapolation past the largest (step time grows linearly with the per-step batch), and the smallest
 * sample below the smallest (a smaller batch is never measured faster, so do not guess lower).
 */
export function interpolateInBatch(samples: readonly StepSample[], localBatch: number): StepTime {
  const first = samples[0];
  if (first === undefined) throw new Error('no step-time samples');
  if (localBatch <= first.localBatch || samples.length === 1) return { stepTime: first.stepTime, syncTime: first.syncTime };
  let upper = samples.findIndex((s) => s.localBatch >= localBatch);
  if (upper === -1) upper = samples.length - 1;
  const lo = samples[upper - 1]!;
  const hi = samples[upper]!;
  const result = lerpStep(lo, hi, (localBatch - lo.localBatch) / (hi.localBatch - lo.localBatch));
  // Extrapolating a sync time that shrinks with batch could go negative; sync is never below zero.
  return { stepTime: result.stepTime, syncTime: Math.max(0, result.syncTime) };
}

/** Piecewise-linear interpolation over a sorted key list, clamped at both ends. */
function interpolateOverKeys<T>(keys: readonly number[], x: number, at: (key: number) => T, mix: (a: T, b: T, f: number) => T): T {
  const first = keys[0];
  const last = keys[keys.length - 1];
  if (first === undefined || last === undefined) throw new Error('empty interpolation table');
  if (x <= first) return at(first);
  if (x >= last) return at(last);
  const upper = keys.findIndex((k) => k >= x);
  const hi = keys[upper]!;
  const lo = keys[upper - 1]!;
  if (hi === x) return at(hi);
  return mix(at(lo), at(hi), (x - lo) / (hi - lo));
}

/**
 * Step time for a placement the traces did not measure: within each measured node count, linear in
 * replicas and local batch; between node counts, linear at the same replicas per node (every node
 * count was measured from 1 to 4 replicas per node, so that is where the tables line up).
 */
export function interpolateOverScale(app: PhillyApp, nodes: number, replicas: number, localBatch: number): StepTime {
  const nodeCounts = [...app.grid.keys()].sort((a, b) => a - b);
  const perNode = replicas / nodes;
  const atNodes = (n: number): StepTime => {
    const byReplicas = app.grid.get(n)!;
    const replicaCounts = [...byReplicas.keys()].sort((a, b) => a - b);
    return interpolateOverKeys(replicaCounts, perNode * n, (r) => interpolateInBatch(byReplicas.get(r)!, localBatch), lerpStep);
  };
  return interpolateOverKeys(nodeCounts, nodes, atNodes, lerpStep);
}

/** Step time of one accumulation-free step of `localBatch` on `workersPerNode` (nodes with ≥ 1 worker). */
export function measuredStepTime(app: PhillyApp, workersPerNode: readonly number[], localBatch: number): StepTime {
  const counts = workersPerNode.filter((c) => c > 0);
  const key = smallestRotation(counts).join('');
  const measured = counts.every((c) => c <= 9) ? app.placements.get(key) : undefined;
  if (measured !== undefined) return interpolateInBatch(measured, localBatch);
  const replicas = counts.reduce((sum, c) => sum + c, 0);
  return interpolateOverScale(app, counts.length, replicas, localBatch);
}

/**
 * Seconds per iteration at a fixed global batch: local batch = ceil(global / workers); above the
 * app's largest per-step batch the local batch is split into accumulation steps that each pay the
 * compute part of a step, and the synchronisation once.
 */
export function iterationSeconds(app: PhillyApp, workersPerNode: readonly number[], globalBatch: number): number {
  const workers = workersPerNode.reduce((sum, c) => sum + c, 0);
  if (workers === 0) return Number.POSITIVE_INFINITY;
  const localBatch = Math.ceil(globalBatch / workers);
  const accumulation = Math.ceil(localBatch / app.maxLocalBatch);
  const microBatch = Math.ceil(localBatch / accumulation);
  const { stepTime, syncTime } = measuredStepTime(app, workersPerNode, microBatch);
  return stepTime + (accumulation - 1) * Math.max(stepTime - syncTime, 0);
}

/**
 * Iterations to train `maxEpochs` epochs at `globalBatch`: the cumulative iteration count at epoch
 * index maxEpochs − 1 of the validation traces, linear between the two nearest measured batch sizes
 * (clamped outside the measured range).
 */
export function iterationsToFinish(app: PhillyApp, globalBatch: number, maxEpochs: number): number {
  return atEpoch(app, globalBatch, maxEpochs - 1, 'iterationsAtEpoch');
}

/**
 * A per-epoch column of the validation traces at epoch index `epoch`, linear between the two
 * nearest measured batch sizes (clamped outside the measured range), as `iterationsToFinish`.
 */
export function atEpoch(app: PhillyApp, globalBatch: number, epoch: number, column: 'iterationsAtEpoch' | 'metricAtEpoch'): number {
  const atBatch = new Map(
    app.validation.map((trace) => {
      const value = trace[column][epoch];
      if (value === undefined) {
        throw new Error(`${app.name}: validation-${trace.globalBatch}.csv has ${trace[column].length} epochs, need ${epoch + 1}`);
      }
      return [trace.globalBatch, value] as const;
    }),
  );
  return interpolateOverKeys([...atBatch.keys()], globalBatch, (b) => atBatch.get(b)!, lerp);
}
