// A job's worker bounds as the scheduler uses them: the elastic bounds less the slots given up by
// failed workers (reconciler/tfjob/given-up-slots.ts), so that the scheduler never places a worker
// the reconciler will not create; a fixed-size job's are its Worker replicas. Pure.
import type { V1Pod } from '@kubernetes/client-node';
import { boundsWithoutGivenUp, givenUpWorkerSlots, type JobView } from '../../reconciler/tfjob/index.ts';

export interface WorkerBounds {
  readonly min: number;
  readonly max: number;
}

export function workerBoundsOf(view: JobView, pods: readonly V1Pod[]): WorkerBounds {
  if (view.elastic === undefined) return { min: view.replicas.Worker ?? 0, max: view.replicas.Worker ?? 0 };
  return boundsWithoutGivenUp(view.elastic, givenUpWorkerSlots(view, pods).length);
}
