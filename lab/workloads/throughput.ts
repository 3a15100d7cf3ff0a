// The one function a simulator and a real-cluster training emulator both call: how fast a job
// progresses given where its running replicas are.
import type { ReplicaPlacement, WorkloadJob } from './model.ts';
import type { Kod2PaperThroughput, PhillyThroughput } from './model.ts';
import { iterationSeconds } from './philly/step-time.ts';

/**
 * Work units per second (images for kod2-paper, iterations for Philly) of `job` with its running
 * replicas at `placement`. Zero unless every PS and at least one worker run: workers cannot push
 * gradients to a missing PS, and a PS alone computes nothing.
 */
export function progressRate(job: WorkloadJob, placement: ReplicaPlacement): number {
  if (placement.ps.length < job.ps.count || placement.workers.length === 0) return 0;
  const model = job.throughput;
  switch (model.kind) {
    case 'kod2-paper':
      return kod2PaperRate(model, placement);
    case 'philly':
      return phillyRate(model, placement);
  }
}

/** Asynchronous PS training: workers add up, remote ones lose the penalty, the PS caps the sum. */
function kod2PaperRate(model: Kod2PaperThroughput, placement: ReplicaPlacement): number {
  const psNodes = new Set(placement.ps);
  let sum = 0;
  for (const node of placement.workers) {
    sum += model.workerImagesPerSecond * (psNodes.has(node) ? 1 : 1 - model.remotePenalty);
  }
  // A job without PS (one standalone worker, as in the vertical study) has no PS to cap it.
  return placement.ps.length === 0 ? sum : Math.min(sum, model.psCapacityImagesPerSecond * placement.ps.length);
}

/** Synchronous training: one iteration per measured step time of the workers' placement. */
function phillyRate(model: PhillyThroughput, placement: ReplicaPlacement): number {
  return 1 / iterationSeconds(model.app, workersPerNode(placement.workers), model.globalBatch);
}

/**
 * Workers per node in node-name order (numeric-aware, so node-2 precedes node-10): the traces key a
 * placement by its rotation class, so a stable node order keeps the lookup deterministic.
 */
export function workersPerNode(workerNodes: readonly string[]): number[] {
  const counts = new Map<string, number>();
  for (const node of workerNodes) counts.set(node, (counts.get(node) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([, count]) => count);
}
