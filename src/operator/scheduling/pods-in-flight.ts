// Pod creates the TFJob controller has sent (or is about to send) and the pod cache has not shown yet,
// each with the node it is bound to. The scheduler counts their room as taken whatever became of
// their job meanwhile: a job deleted (gone from the cache), suspended or finished while its creates
// were in flight leaves no placement behind to count, yet its pods still land on their nodes (the API
// server binds a pod whose owner is gone; garbage collection removes it only later). Keyed by pod,
// not by job, so forgetting a job never forgets its pods. No I/O.
import type { V1Pod } from '@kubernetes/client-node';
import type { OtherPod } from '../../scheduler/index.ts';
import { podRequests, type DefaultRequests } from './convert.ts';
import { podNode } from './pod-facts.ts';

/**
 * A create not seen within this time is forgotten: its answer was lost and nothing came of it, or
 * the pod came and went between two relists. Long enough for a slow API and a lagging watch.
 */
export const IN_FLIGHT_TTL_MS = 60_000;

export interface PodInFlight {
  /** `namespace/name` of the pod. */
  readonly key: string;
  readonly node: string;
  /** UID of the TFJob that controls it (a job deleted and created again under its name is another). */
  readonly ownerUid: string | undefined;
  readonly pod: V1Pod;
  readonly since: number;
}

export class PodsInFlight {
  readonly #byKey = new Map<string, PodInFlight>();
  readonly #ttlMs: number;

  constructor(ttlMs = IN_FLIGHT_TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  /** Registered before the create is sent (a pass may run while it is on its way). */
  sending(namespace: string, pods: readonly V1Pod[], now: number): void {
    for (const pod of pods) {
      const node = podNode(pod);
      if (node === undefined) continue; // not bound by us: kube-scheduler counts it once it exists
      const key = `${namespace}/${pod.metadata?.name ?? ''}`;
      const ownerUid = pod.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid;
      this.#byKey.set(key, { key, node, ownerUid, pod, since: now });
    }
  }

  /** The API answered in a way that proves nothing was created (refused, invalid). */
  refused(key: string): void {
    this.#byKey.delete(key);
  }

  /** The pod cache shows the pod: from now on it is counted as a pod. */
  observed(key: string): void {
    this.#byKey.delete(key);
  }

  /** The creates still in flight at `now`; expired ones are dropped. */
  current(now: number): PodInFlight[] {
    const out: PodInFlight[] = [];
    for (const [key, p] of this.#byKey) {
      if (now - p.since > this.#ttlMs) this.#byKey.delete(key);
      else out.push(p);
    }
    return out;
  }
}

/**
 * In-flight pods as used capacity, for the jobs the snapshot does not otherwise count (`counted`:
 * UIDs of the jobs whose placements it holds), skipping pods the cache already shows (counted there).
 */
export function inFlightAsOtherPods(
  inFlight: readonly PodInFlight[],
  counted: ReadonlySet<string>,
  cached: ReadonlySet<string>,
  defaults: DefaultRequests,
): OtherPod[] {
  const out: OtherPod[] = [];
  for (const p of inFlight) {
    if (cached.has(p.key) || (p.ownerUid !== undefined && counted.has(p.ownerUid))) continue;
    out.push({ key: p.key, node: p.node, requests: podRequests(p.pod, defaults) });
  }
  return out;
}
