// Small facts about pods and TFJobs as cached, shared by the scheduling stages. Pure.
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_PLACED_NODE, ANNOTATION_REMOVAL, LABEL_REPLICA_TYPE, REMOVAL_PREEMPTION } from '../../api/v1/constants.ts';
import type { TFJobEntry } from '../../api/v1/parse.ts';

/**
 * The node a pod uses or will use: its `nodeName`, or for one of ours that kube-scheduler has yet to
 * bind, the node the operator chose for it (reconciler/tfjob/binding.ts). Its capacity is taken from
 * the moment the pod exists.
 */
export function podNode(p: V1Pod): string | undefined {
  return p.spec?.nodeName ?? p.metadata?.annotations?.[ANNOTATION_PLACED_NODE];
}

/** A pod that still counts as a replica: not terminating, not marked for removal, not terminated. */
export function isLive(p: V1Pod): boolean {
  const phase = p.status?.phase;
  return (
    p.metadata?.deletionTimestamp === undefined &&
    p.metadata?.annotations?.[ANNOTATION_REMOVAL] === undefined &&
    phase !== 'Succeeded' &&
    phase !== 'Failed'
  );
}

export function isLiveWorker(p: V1Pod): boolean {
  return isLive(p) && p.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker';
}

/** Why kube-scheduler refuses a pod the operator left it to bind, and since when. */
export interface Refusal {
  /** The node the operator chose (the pod is pinned to it). */
  readonly node: string;
  readonly message: string;
  readonly since: number;
}

/**
 * Refusals that hold wherever the pod goes (a claim that does not exist or is not bound yet): moving
 * the pod would not help, so it waits where it is and its warning says why.
 */
const POD_WIDE_REFUSAL = [/persistentvolumeclaim "[^"]*" not found/i, /unbound immediate PersistentVolumeClaims/i, /is being deleted/i];

/**
 * The refusal of a live pod of ours that kube-scheduler has not bound to the node the operator chose
 * (`PodScheduled=False`, reason `Unschedulable`), when it is about that node: the pod is pinned to
 * it, so every other node fails on node affinity and what remains is the chosen node's own reason
 * (pod anti-affinity, host ports, topology spread, a volume's node affinity...). Undefined otherwise.
 */
export function schedulerRefusal(p: V1Pod): Refusal | undefined {
  const node = p.metadata?.annotations?.[ANNOTATION_PLACED_NODE];
  if (node === undefined || p.spec?.nodeName !== undefined || !isLive(p) || p.status?.phase !== 'Pending') return undefined;
  const c = p.status.conditions?.find((x) => x.type === 'PodScheduled');
  if (c === undefined || c.status !== 'False' || c.reason !== 'Unschedulable') return undefined;
  const message = c.message ?? '';
  if (POD_WIDE_REFUSAL.some((re) => re.test(message))) return undefined;
  const since = c.lastTransitionTime === undefined ? Number.NaN : new Date(c.lastTransitionTime).getTime();
  return Number.isFinite(since) ? { node, message, since } : undefined;
}

/** A worker this operator preempted that is still terminating (its capacity is not free yet). */
export function isTerminatingPreempted(p: V1Pod): boolean {
  return p.metadata?.deletionTimestamp !== undefined && p.metadata.annotations?.[ANNOTATION_REMOVAL] === REMOVAL_PREEMPTION;
}

/** Succeeded or Failed: the job has left the queues for good. */
export function isFinished(job: TFJobEntry | undefined): boolean {
  return (job?.status?.conditions ?? []).some((c) => (c.type === 'Succeeded' || c.type === 'Failed') && c.status === 'True');
}

/** The index in a pod name `<job>-<type>-<index>`, if the name is of that type. */
export function replicaIndexOf(podName: string, jobName: string, lowerType: string): number | undefined {
  const prefix = `${jobName}-${lowerType}-`;
  if (!podName.startsWith(prefix)) return undefined;
  const n = Number(podName.slice(prefix.length));
  return Number.isInteger(n) ? n : undefined;
}

/** The replica type (as in the spec) and index a pod name stands for, if any. */
export function replicaOf(replicaTypes: Iterable<string>, podName: string, jobName: string): [string, number] | undefined {
  for (const type of replicaTypes) {
    const i = replicaIndexOf(podName, jobName.replace(/\//g, '-'), type.toLowerCase());
    if (i !== undefined) return [type, i];
  }
  return undefined;
}
