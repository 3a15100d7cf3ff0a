// What the TFJob controller gets from the scheduler when it reconciles a job: admitted or not, how
// many workers, where each pod it may create now goes, and `status.scheduling`. A pure read: it turns
// a decision and what the caches show (victims still there, nodes where a preempted pod still
// terminates) into the reconciler's input, and changes neither.
import type { SchedulingStatus } from '../../../api/v1/schema.ts';
import { workersSummary, type SchedulingInput } from '../../../reconciler/tfjob/index.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { objectKey } from '../../../runtime/store.ts';
import { pendingAlive, type DecisionView } from './decision.ts';
import { isTerminatingPreempted } from '../pod-facts.ts';

/** What the caches and the book show, as the input reads it. */
export interface InputCache {
  /** The pod still using capacity under this `namespace/name`, if any. */
  pod(key: string): { readonly metadata?: { readonly uid?: string } } | undefined;
  /** The pods still using capacity on a node. */
  onNode(node: string): readonly V1Pod[];
  /** Whether the operator preempted this pod and has not seen it gone (DecisionBook.isPreempted). */
  isPreempted(podKey: string, uid: string | undefined): boolean;
}

/** The job as the input needs it. */
export type JobInputFacts = Omit<InputFacts, 'victimsPresent' | 'heldNodes' | 'now'>;

/** The reconciler's input for one job, from its decision and the caches. */
export function readInput(d: DecisionView, job: JobInputFacts, cache: InputCache, now: number): SchedulingInput {
  const victimsPresent = victimsStillThere(d, cache);
  const heldNodes = victimsPresent
    ? new Set<string>()
    : heldPlacementNodes(d, now, (node) => holdsNode(cache.onNode(node), (pod, uid) => cache.isPreempted(pod, uid)));
  return schedulingInput(d, { ...job, victimsPresent, heldNodes, now });
}

/**
 * Whether a victim preempted for this job is still cached under its UID. One gone from the cache no
 * longer blocks, also when its delete event was missed (the pass prunes it from the book).
 */
export function victimsStillThere(d: DecisionView, cache: Pick<InputCache, 'pod'>): boolean {
  for (const [key, uid] of d.victims) {
    const pod = cache.pod(key);
    if (pod !== undefined && pod.metadata?.uid === uid) return true;
  }
  return false;
}

export interface InputFacts {
  readonly elastic: boolean;
  readonly bounds: { readonly min: number; readonly max: number };
  readonly finished: boolean;
  readonly liveWorkers: number;
  /** Recorded on the pods as `placed-by`: the policy's name. */
  readonly placedBy: string;
  /** A victim preempted for this job is still there: nothing is created before it is gone. */
  readonly victimsPresent: boolean;
  /**
   * Nodes where a pod this operator preempted still terminates. The core counts a preempted pod's
   * capacity as free from the moment it is marked (the room is its preemptor's), but a kubelet admits
   * a new pod against every pod not yet terminated: placements there wait until it is gone.
   */
  readonly heldNodes: ReadonlySet<string>;
  readonly now: number;
}

export function schedulingInput(d: DecisionView, facts: InputFacts): SchedulingInput {
  const ready = !facts.victimsPresent;
  const usable = (p: { node: string; since: number }) => pendingAlive(p, facts.now) && !facts.heldNodes.has(p.node);
  const placements: Record<string, { nodeName: string; placedBy: string }> = {};
  if (ready) for (const [name, p] of d.pendingByName) if (usable(p)) placements[name] = { nodeName: p.node, placedBy: facts.placedBy };
  return {
    admitted: d.admitted,
    ...(facts.elastic ? { workers: d.targetWorkers } : {}),
    placements,
    workerNodes: ready ? d.pendingWorkers.filter(usable).map((p) => p.node) : [],
    placedBy: facts.placedBy,
    requirePlacement: true,
    status: schedulingStatus(d, facts),
  };
}

/**
 * Whether a pod preempted by this operator still holds a node: terminating in the cache, or not even
 * shown terminating yet (the cache lags the delete just sent), which `isPreempted` knows from the book.
 */
export function holdsNode(podsOnNode: readonly V1Pod[], isPreempted: (podKey: string, uid: string | undefined) => boolean): boolean {
  return podsOnNode.some((p) => isTerminatingPreempted(p) || isPreempted(objectKey(p), p.metadata?.uid));
}

/** The nodes of this decision's usable placements that are held (see InputFacts.heldNodes). */
export function heldPlacementNodes(d: DecisionView, now: number, isHeld: (node: string) => boolean): Set<string> {
  const held = new Set<string>();
  for (const p of [...d.pendingByName.values(), ...d.pendingWorkers]) if (pendingAlive(p, now) && isHeld(p.node)) held.add(p.node);
  return held;
}

export function schedulingStatus(d: DecisionView, facts: Pick<InputFacts, 'bounds' | 'finished' | 'liveWorkers'>): SchedulingStatus {
  const queue = facts.finished ? 'Finished' : d.admitted ? 'Running' : 'Waiting';
  const current = queue === 'Waiting' ? 0 : facts.liveWorkers;
  const { min, max } = facts.bounds;
  // A running job tells what the scheduler last did to it (Admitted, Preempted, ScaledOut, ...); a
  // waiting reason left from before its admission (a restart in between) reads as Admitted.
  const waitingReason = d.reason === 'Waiting' || d.reason === 'Starving';
  const running = queue === 'Running' ? (d.reason === undefined || waitingReason ? { reason: 'Admitted' } : { reason: d.reason }) : {};
  const text = queue === 'Waiting' || (queue === 'Running' && !waitingReason) ? d.message : undefined;
  return {
    queue,
    ...(d.weight === undefined ? {} : { weight: d.weight.toFixed(3) }),
    ...(d.clusterQueue === undefined ? {} : { clusterQueue: d.clusterQueue }),
    // Milliseconds kept: the queue orders by it, and a restart must not reorder jobs of one second.
    enqueueTime: new Date(d.enqueueTime).toISOString(),
    workers: { current, min, max },
    workersSummary: workersSummary(current, min, max),
    ...(queue === 'Waiting' && d.reason !== undefined ? { reason: d.reason } : running),
    ...(text === undefined ? {} : { message: text }),
    // Once starving, a job stays marked so after its admission: it is why it went ahead of others.
    starving: queue !== 'Finished' && d.starving,
    preemptions: d.preemptions,
    scaleOuts: d.scaleOuts,
    ...(d.lastScaleTime === undefined ? {} : { lastScaleTime: d.lastScaleTime }),
    // Absent until there is something to say: a restart must not rewrite every job to add a zero.
    ...(d.attainedReported > 0 ? { attainedWorkerSeconds: d.attainedReported } : {}),
  };
}
