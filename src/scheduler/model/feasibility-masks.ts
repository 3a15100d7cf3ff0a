// Feasibility (taints, selectors, affinity) depends only on node and constraints: computed once per
// distinct constraint set and pass, as a per-node mask.

import { constraintsKey, nodeFeasibility } from './feasibility.ts';
import type { InfeasibleReason } from './feasibility.ts';
import type { NodeInfo, PlacementConstraints } from '../types.ts';

export interface FeasibilityMask {
  readonly id: number;
  /** 1 where a replica with these constraints may run (resources aside). */
  readonly feasible: Uint8Array;
  readonly feasibleCount: number;
  /** How many nodes each rule ruled out, for explanations. */
  readonly excluded: Readonly<Partial<Record<InfeasibleReason, number>>>;
}

const NO_CONSTRAINTS_KEY = '';
const keyCache = new WeakMap<PlacementConstraints, string>();

function keyOf(c: PlacementConstraints): string {
  if (c.nodeSelector === undefined && c.requiredNodeAffinity === undefined && (c.tolerations?.length ?? 0) === 0) {
    return NO_CONSTRAINTS_KEY;
  }
  // Callers usually share one constraints object per pod template; remember its key.
  let k = keyCache.get(c);
  if (k === undefined) {
    k = constraintsKey(c);
    keyCache.set(c, k);
  }
  return k;
}

/** Per-pass registry of feasibility masks, computed lazily on first use. */
export class FeasibilityMasks {
  readonly #nodes: readonly NodeInfo[];
  readonly #ids = new Map<string, number>();
  readonly #constraints: PlacementConstraints[] = [];
  readonly #masks: (FeasibilityMask | undefined)[] = [];

  constructor(nodes: readonly NodeInfo[]) {
    this.#nodes = nodes;
  }

  idFor(c: PlacementConstraints): number {
    const key = keyOf(c);
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#constraints.length;
      this.#ids.set(key, id);
      this.#constraints.push(c);
      this.#masks.push(undefined);
    }
    return id;
  }

  get(id: number): FeasibilityMask {
    let m = this.#masks[id];
    if (m === undefined) {
      const c = this.#constraints[id]!;
      const feasible = new Uint8Array(this.#nodes.length);
      const excluded: Partial<Record<InfeasibleReason, number>> = {};
      let count = 0;
      for (let n = 0; n < this.#nodes.length; n++) {
        const why = nodeFeasibility(this.#nodes[n]!, c);
        if (why === undefined) {
          feasible[n] = 1;
          count++;
        } else {
          excluded[why] = (excluded[why] ?? 0) + 1;
        }
      }
      m = { id, feasible, feasibleCount: count, excluded };
      this.#masks[id] = m;
    }
    return m;
  }
}
