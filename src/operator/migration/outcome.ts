// Whether a move SpeCon started ended where it meant: the replacement (same pod name, a new UID) bound
// to the target node, bound elsewhere (the target filled first: the repair step placed it as any
// repair), or not bound at all before the steering lapsed. Pure.
import type { Pod } from '../../api/v1/k8s-types.ts';
import { isRemovedByOperator, isTerminating } from '../../reconciler/tfjob/pod-state.ts';
import type { Migration } from '../../scheduler/vertical/specon/index.ts';

/** A move whose old pod is deleted and whose replacement is not yet seen bound. */
export interface PendingMove {
  readonly migration: Migration;
  /** The deleted pod's UID: a pod of the same name with another UID is the replacement. */
  readonly oldUid: string | undefined;
  readonly startedAt: number;
}

export type MoveOutcome =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'arrived' }
  | { readonly kind: 'elsewhere'; readonly node: string }
  | { readonly kind: 'unplaced' };

/** The replacement of the moved pod, once it is bound to a node. */
export function boundReplacement(move: PendingMove, pods: readonly Pod[]): Pod | undefined {
  return pods.find(
    (p) =>
      p.metadata?.name === move.migration.pod &&
      p.metadata.uid !== move.oldUid &&
      !isTerminating(p) &&
      !isRemovedByOperator(p) &&
      (p.spec?.nodeName ?? '') !== '',
  );
}

export function moveOutcome(move: PendingMove, pods: readonly Pod[], now: number, ttlMs: number): MoveOutcome {
  const node = boundReplacement(move, pods)?.spec?.nodeName;
  if (node === undefined) return now - move.startedAt >= ttlMs ? { kind: 'unplaced' } : { kind: 'waiting' };
  return node === move.migration.to ? { kind: 'arrived' } : { kind: 'elsewhere', node };
}
