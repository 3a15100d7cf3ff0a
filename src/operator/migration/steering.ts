// Where a migrated job's replacement worker goes: SpeCon records the target before deleting the old
// pod, and the scheduling pass's repair step places the job's missing worker there when the node is
// still a candidate (feasible, with room after the pass's plan and the pods in flight); otherwise it
// places it as any repair. It also keeps the pass's last view of the nodes' room for SpeCon. A target is forgotten once used or after a while (the move then lapses).
// A restarted operator reads the target from the job's status (a move left Moving): its first pass may
// run before SpeCon's first round adopts the move, and must not place the replacement anywhere.
import { moveUnderWay } from '../../api/v1/migration.ts';
import type { TFJobEntry } from '../../api/v1/parse.ts';
import type { ClusterView, MigrationHook } from '../scheduling/pass/decide.ts';

export const STEERING_TTL_MS = 5 * 60_000;

/** A move a job's status says is under way: its target and when it started (ms since the epoch). */
export interface RecordedTarget {
  readonly node: string;
  readonly since: number;
}

/** The target of the job's move if its status says Moving (a previous operator may have started it). */
export function movingTarget(entry: TFJobEntry | undefined): RecordedTarget | undefined {
  const last = moveUnderWay(entry?.status);
  if (last === undefined) return undefined;
  const since = Date.parse(last.time);
  return Number.isNaN(since) ? undefined : { node: last.to, since };
}

export class MigrationSteering implements MigrationHook {
  readonly #targets = new Map<string, { node: string; until: number }>();
  /** When this operator last settled each job's move: a status still saying Moving from before is stale. */
  readonly #settledAt = new Map<string, number>();
  readonly #now: () => number;
  readonly #recorded: (job: string) => RecordedTarget | undefined;
  #view: ClusterView | undefined;

  constructor(now: () => number = () => Date.now(), recorded: (job: string) => RecordedTarget | undefined = () => undefined) {
    this.#now = now;
    this.#recorded = recorded;
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
    if (t !== undefined) {
      if (this.#now() < t.until) return t.node;
      this.#targets.delete(job);
    }
    const r = this.#recorded(job);
    if (r === undefined) this.#settledAt.delete(job);
    if (r === undefined || r.since <= (this.#settledAt.get(job) ?? Number.NEGATIVE_INFINITY)) return undefined;
    return this.#now() < r.since + STEERING_TTL_MS ? r.node : undefined;
  }

  /** The replacement is bound (on the target or not), or the move failed: the target is forgotten. */
  done(job: string): void {
    this.#targets.delete(job);
    this.#settledAt.set(job, this.#now());
  }
}
