// Collects a pass's decisions into the `Plan` of types.ts. Workers added by scale-out to a job
// admitted in the same pass are folded into its admission, so the caller creates the job's pods
// once and never sees one job both admitted and scaled out.

import type { Admission, Binding, Plan, ReplicaInstance, ScaleIn, ScaleOut, Suspension, WaitingReason } from '../types.ts';

export class PlanBuilder {
  readonly #admit = new Map<string, ReplicaInstance[]>();
  readonly #scaleIn: ScaleIn[] = [];
  readonly #scaleOut = new Map<string, ReplicaInstance[]>();
  readonly #bind: Binding[] = [];
  readonly #suspend: Suspension[] = [];

  admit(job: string, replicas: readonly ReplicaInstance[]): void {
    this.#admit.set(job, [...replicas]);
  }

  isAdmitted(job: string): boolean {
    return this.#admit.has(job);
  }

  suspend(job: string, forJob: string): void {
    this.#suspend.push({ job, forJob });
  }

  isSuspended(job: string): boolean {
    return this.#suspend.some((s) => s.job === job);
  }

  scaleIn(
    job: string,
    remove: readonly ReplicaInstance[],
    forJob: string,
    why: { toMeetTarget?: boolean; reclaimedBy?: string; relocated?: boolean } = {},
  ): void {
    if (remove.length === 0) return;
    this.#scaleIn.push({
      job,
      remove: [...remove],
      forJob,
      ...(why.toMeetTarget === true ? { toMeetTarget: true } : {}),
      ...(why.reclaimedBy === undefined ? {} : { reclaimedBy: why.reclaimedBy }),
      ...(why.relocated === true ? { relocated: true } : {}),
    });
  }

  addWorkers(job: string, replicas: readonly ReplicaInstance[]): void {
    if (replicas.length === 0) return;
    const admission = this.#admit.get(job);
    if (admission !== undefined) {
      admission.push(...replicas);
      return;
    }
    const list = this.#scaleOut.get(job);
    if (list === undefined) this.#scaleOut.set(job, [...replicas]);
    else list.push(...replicas);
  }

  bind(job: string, replica: ReplicaInstance): void {
    this.#bind.push({ job, replica });
  }

  build(waiting: readonly WaitingReason[], weights: Readonly<Record<string, number>>): Plan {
    const admit: Admission[] = [...this.#admit].map(([job, replicas]) => ({ job, replicas }));
    const scaleOut: ScaleOut[] = [...this.#scaleOut].map(([job, add]) => ({ job, add }));
    return { suspend: this.#suspend, admit, scaleIn: this.#scaleIn, scaleOut, bind: this.#bind, waiting, weights };
  }
}

/** Weights keyed in sorted key order, so plans compare equal whatever order jobs came in. */
export function sortedWeights(entries: Iterable<readonly [string, number]>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) out[k] = v;
  return out;
}
