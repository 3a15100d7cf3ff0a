// Where a migrated job's replacement worker goes: SpeCon records the target before deleting the old
// pod, and the scheduling pass's repair step places the job's missing worker there when the node is
// still a candidate (feasible, with room after the pass's plan and the pods in flight); otherwise it
// places it as any repair. It also keeps the pass's last view of the nodes' room for SpeCon. A target is forgotten once used or after a while (the move then lapses).
import type { ClusterView, MigrationHook } from '../scheduling/pass/decide.ts';

export const STEERING_TTL_MS = 5 * 60_000;

export class MigrationSteering implements MigrationHook {
  readonly #targets = new Map<string, { node: string; until: number }>();
  readonly #now: () => number;
  #view: ClusterView | undefined;

  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
  }

  /** The scheduling pass's last view of the nodes (SpeCon plans on it); undefined before a pass. */
  view(): ClusterView | undefined {
    return this.#view;
  }

  passed(view: ClusterView): void {
    this.#view = view;
  }

  steer(job: string, node: string, ttlMs = STEERING_TTL_MS): void {
    this.#targets.set(job, { node, until: this.#now() + ttlMs });
  }

  /** The node the job's next replacement should go to, if a move is under way. */
  preferredNode(job: string): string | undefined {
    const t = this.#targets.get(job);
    if (t === undefined) return undefined;
    if (this.#now() < t.until) return t.node;
    this.#targets.delete(job);
    return undefined;
  }

  /** The replacement runs (on the target or not): the move is over. */
  done(job: string): void {
    this.#targets.delete(job);
  }

  pending(): ReadonlyMap<string, string> {
    return new Map([...this.#targets].filter(([job]) => this.preferredNode(job) !== undefined).map(([job, t]) => [job, t.node]));
  }
}
