// Which pods and services to delete when a job finishes (cleanPodPolicy) or is suspended
// (tf-operator's DeletePodsAndServices).

import { CLEAN_POD_POLICY_NONE, CLEAN_POD_POLICY_RUNNING } from '../../api/v1/policies.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import { ANNOTATION_REMOVAL } from '../../api/v1/constants.ts';
import { EVENT_REMOVAL_COMPLETED, messages, normal, type JobEvent } from './events.ts';
import type { Action } from './plan-types.ts';
import { PHASE_PENDING, PHASE_RUNNING, isRemovedByOperator, isTerminating, podName, podPhase } from './pod-state.ts';

export interface CleanupSelection {
  readonly pods: readonly string[];
  readonly services: readonly string[];
}

/**
 * - not finished (suspend, or a limit exceeded before the Failed condition — tf-operator ≤1.9.3): all;
 * - finished with `None`: nothing;
 * - finished with `Running`: pods Running or Pending (Pending ones would start later);
 * - finished with `All`, and any other value including "": all.
 * Each deleted pod takes the service of the same name with it; services whose pod is already gone are
 * left to garbage collection with the job. Pods already being deleted are not deleted again.
 */
export function selectForCleanup(
  cleanPodPolicy: string,
  finished: boolean,
  pods: readonly Pod[],
  services: readonly Service[],
): CleanupSelection {
  if (pods.length === 0 || (finished && cleanPodPolicy === CLEAN_POD_POLICY_NONE)) return { pods: [], services: [] };
  const serviceNames = new Set(services.filter((s) => !isTerminating(s)).map((s) => s.metadata?.name ?? ''));
  const selectedPods: string[] = [];
  const selectedServices: string[] = [];
  for (const pod of pods) {
    const phase = podPhase(pod);
    if (finished && cleanPodPolicy === CLEAN_POD_POLICY_RUNNING && phase !== PHASE_RUNNING && phase !== PHASE_PENDING) continue;
    const name = podName(pod);
    if (!isTerminating(pod)) selectedPods.push(name);
    if (serviceNames.has(name)) selectedServices.push(name);
  }
  return { pods: selectedPods, services: selectedServices };
}

/**
 * Deletes of pods the operator marked for removal whose delete never went out (the operator killed
 * between the mark and the delete, or the delete failed), except those in `already`. A marked pod is
 * no replica any more, and the scheduler counts its room as free: a job that no longer runs (sent
 * back to the queue, finished with cleanPodPolicy None) would otherwise keep it for ever.
 */
export function interruptedRemovals(pods: readonly Pod[], events: JobEvent[], already: readonly Action[] = []): Action[] {
  const deleting = new Set(already.flatMap((a) => (a.kind === 'deletePod' ? [a.name] : [])));
  const pending = pods.filter((p) => isRemovedByOperator(p) && !isTerminating(p) && !deleting.has(podName(p)));
  events.push(...pending.map(removalCompleted));
  return pending.map((p): Action => ({ kind: 'deletePod', name: podName(p), uid: p.metadata?.uid, reason: 'scale-in' }));
}

/**
 * Said when a removal is completed that an earlier pass (often an operator since restarted) marked
 * but never deleted: otherwise the user sees a worker vanish with nothing saying why.
 */
export function removalCompleted(pod: Pod): JobEvent {
  const mark = pod.metadata?.annotations?.[ANNOTATION_REMOVAL] ?? '';
  return normal(EVENT_REMOVAL_COMPLETED, messages.removalCompleted(podName(pod), mark));
}
