// `tiresias` baseline: Tiresias's discretised two-dimensional least-attained-service (2D-LAS;
// Gu et al., NSDI'19), as the Pollux OSDI'21 artifact runs it for its comparisons. Two queues: a job
// starts in the first and moves to the second once its attained service (workers × seconds held)
// reaches 16 worker-hours, the artifact's threshold (3600 × 16 GPU-seconds, one GPU per worker);
// first-come first-served within a queue. Jobs run as fixed-size gangs at their maximum size, and a
// job in the first queue suspends running jobs of the second (ordered-gang.ts). Like the artifact,
// no starvation promotion. Uses only what an operator sees (arrival, attained service).

import type { CompiledJob } from '../../../src/scheduler/model/job-model.ts';
import { classesFirst, orderedGangPass } from './ordered-gang.ts';
import type { SchedulingPolicy } from '../../../src/scheduler/policies/policy.ts';

/** The artifact's queue threshold: 16 GPU-hours, one GPU per worker. */
export const TIRESIAS_QUEUE_THRESHOLD_WORKER_SECONDS = 16 * 3600;

function queueOf(job: CompiledJob): number {
  return (job.state.attainedWorkerSeconds ?? 0) >= TIRESIAS_QUEUE_THRESHOLD_WORKER_SECONDS ? 1 : 0;
}

const tiresiasOrder = classesFirst((a, b) => queueOf(a) - queueOf(b));

export const tiresiasPolicy: SchedulingPolicy = {
  name: 'tiresias',
  description:
    'Tiresias 2D-LAS baseline: fixed-size gangs, two queues by attained service (16 worker-hours), FIFO within a queue, preemptive',
  schedule: (snapshot, config) => orderedGangPass(snapshot, config, tiresiasOrder, 'Tiresias (least attained service)'),
};
