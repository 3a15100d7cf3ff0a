// A search index over a set of nodes for the placement rule's walks (placement.ts), so that a walk
// "most idle first" does not have to visit the thousands of nodes in a busy cluster that have no
// room for the job at all.
//
// A tournament tree over the member nodes in index order. Every tree node keeps, for its subtree,
// the best member by the walk's order (highest idle score, lowest index on ties) and the maximum
// idle amount of each resource. A subtree whose maxima fall short of what is needed cannot hold it
// anywhere and is skipped whole. Visiting the remaining members best first gives exactly the order
// of `ClusterState.order`, restricted to nodes that could take something: the walks' results do
// not change, only the nodes they would have skipped anyway are never touched.
//
// Updates are lazy: the owner reports changed nodes (`invalidate`), and each tree applies them
// before its next search (`sync`), so a tree that is not searched between many changes costs only
// the list of those changes.

/** Read access to the live idle amounts and scores the tree mirrors. */
export interface FitTreeSource {
  readonly R: number;
  readonly idle: Float64Array;
  readonly score: Float64Array;
}

export class FitTree {
  readonly #src: FitTreeSource;
  readonly #leaves: number;
  /** Best score in each subtree (−∞: no member). */
  readonly #score: Float64Array;
  /** Leaf position of the best member of each subtree (−1: none). */
  readonly #best: Int32Array;
  /** Per-resource maxima: tree node i at [i·R, (i+1)·R). */
  readonly #dimMax: Float64Array;
  /** Node index at each leaf (−1: empty) and leaf of each node (−1: not a member). */
  readonly #nodeAt: Int32Array;
  readonly #leafOf: Int32Array;
  readonly #count: number;
  /** Changed nodes not yet applied, and a per-node mark against applying one twice per sync. */
  #pending: number[] = [];
  readonly #marked: Uint8Array;
  /** Scratch for searches: a DFS stack and a binary heap of tree nodes. */
  readonly #stack: Int32Array;
  #heap: Int32Array;
  #size = 0;

  /** `members`: ascending node indices. */
  constructor(src: FitTreeSource, nodeCount: number, members: ArrayLike<number>) {
    this.#src = src;
    const R = src.R;
    let leaves = 1;
    while (leaves < Math.max(1, members.length)) leaves *= 2;
    this.#leaves = leaves;
    this.#score = new Float64Array(2 * leaves).fill(Number.NEGATIVE_INFINITY);
    this.#best = new Int32Array(2 * leaves).fill(-1);
    this.#dimMax = new Float64Array(2 * leaves * R).fill(Number.NEGATIVE_INFINITY);
    this.#nodeAt = new Int32Array(leaves).fill(-1);
    this.#leafOf = new Int32Array(nodeCount).fill(-1);
    this.#marked = new Uint8Array(nodeCount);
    this.#count = members.length;
    for (let i = 0; i < members.length; i++) {
      const n = members[i]!;
      this.#nodeAt[i] = n;
      this.#leafOf[n] = i;
      this.#loadLeaf(i);
    }
    this.#build();
    this.#stack = new Int32Array(2 * (Math.log2(leaves) + 2));
    this.#heap = new Int32Array(64);
  }

  /** The member nodes, ascending. */
  get members(): Int32Array {
    return this.#nodeAt.subarray(0, this.#count);
  }

  #loadLeaf(leaf: number): void {
    const R = this.#src.R;
    const n = this.#nodeAt[leaf]!;
    const i = this.#leaves + leaf;
    this.#score[i] = this.#src.score[n]!;
    this.#best[i] = leaf;
    // A copy loop, not `set(subarray(…))`: a subarray is an allocation per leaf, and a pass builds
    // trees over thousands of leaves.
    const idle = this.#src.idle;
    const dm = this.#dimMax;
    for (let d = 0; d < R; d++) dm[i * R + d] = idle[n * R + d]!;
  }

  /** Fills every inner node from its children, bottom up (what `#pull` does, without change tracking). */
  #build(): void {
    const R = this.#src.R;
    const score = this.#score;
    const best = this.#best;
    const dm = this.#dimMax;
    for (let i = this.#leaves - 1; i >= 1; i--) {
      const l = 2 * i;
      const r = l + 1;
      const win = this.#better(l, r);
      score[i] = score[win]!;
      best[i] = best[win]!;
      for (let d = 0; d < R; d++) {
        dm[i * R + d] = Math.max(dm[l * R + d]!, dm[r * R + d]!);
      }
    }
  }

  /** Whether tree node a's best member comes before b's in the walk order. */
  #before(a: number, b: number): boolean {
    const sa = this.#score[a]!;
    const sb = this.#score[b]!;
    if (sa !== sb) return sa > sb;
    return this.#best[a]! < this.#best[b]!;
  }

  /** Recomputes tree node i from its children; whether anything in it changed. */
  #pull(i: number): boolean {
    const R = this.#src.R;
    const l = 2 * i;
    const r = l + 1;
    const win = this.#better(l, r);
    let changed = this.#score[i] !== this.#score[win] || this.#best[i] !== this.#best[win];
    this.#score[i] = this.#score[win]!;
    this.#best[i] = this.#best[win]!;
    const dm = this.#dimMax;
    for (let d = 0; d < R; d++) {
      const m = Math.max(dm[l * R + d]!, dm[r * R + d]!);
      if (dm[i * R + d] !== m) {
        dm[i * R + d] = m;
        changed = true;
      }
    }
    return changed;
  }

  /** Notes that node n's idle amounts (and so its score) changed. */
  invalidate(n: number): void {
    if (this.#leafOf[n]! < 0 || this.#marked[n] === 1) return;
    this.#marked[n] = 1;
    this.#pending.push(n);
  }

  /** Applies the pending changes. */
  #sync(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    for (const n of pending) {
      this.#marked[n] = 0;
      const leaf = this.#leafOf[n]!;
      this.#loadLeaf(leaf);
      // Above a tree node that did not change, nothing does.
      let i = (this.#leaves + leaf) >> 1;
      while (i >= 1 && this.#pull(i)) i >>= 1;
    }
    this.#pending = [];
  }

  /**
   * The first member in walk order whose idle amounts hold `need` (every positive entry) and that
   * `accept` takes; −1 if none.
   */
  first(need: Float64Array, accept: (node: number) => boolean): number {
    this.#sync();
    const R = this.#src.R;
    const score = this.#score;
    const bestOf = this.#best;
    const dm = this.#dimMax;
    const stack = this.#stack;
    let found = -1; // leaf position
    let foundScore = Number.NEGATIVE_INFINITY;
    let top = 0;
    stack[top++] = 1;
    outer: while (top > 0) {
      const i = stack[--top]!;
      const s = score[i]!;
      if (bestOf[i]! < 0) continue;
      // Nothing in here can come before what was found: lower scores, or equal scores further right.
      if (found >= 0 && (s < foundScore || (s === foundScore && bestOf[i]! > found))) continue;
      for (let d = 0; d < R; d++) {
        const x = need[d]!;
        if (x > 0 && x > dm[i * R + d]!) continue outer;
      }
      if (i >= this.#leaves) {
        const leaf = i - this.#leaves;
        if (accept(this.#nodeAt[leaf]!)) {
          found = leaf;
          foundScore = s;
        }
        continue;
      }
      // Depth first, the child holding the better member explored first (pushed last).
      const l = 2 * i;
      const r = l + 1;
      if (this.#better(l, r) === r) {
        stack[top++] = l;
        stack[top++] = r;
      } else {
        stack[top++] = r;
        stack[top++] = l;
      }
    }
    return found < 0 ? -1 : this.#nodeAt[found]!;
  }

  /**
   * Visits, in no particular order, every member whose idle amounts may hold `need` (each positive
   * entry): every member that does, and possibly others of a subtree whose maxima do.
   */
  forEachHolding(need: Float64Array, visit: (node: number) => void): void {
    this.#sync();
    const R = this.#src.R;
    const bestOf = this.#best;
    const dm = this.#dimMax;
    const stack = this.#stack;
    let top = 0;
    stack[top++] = 1;
    outer: while (top > 0) {
      const i = stack[--top]!;
      if (bestOf[i]! < 0) continue;
      for (let d = 0; d < R; d++) {
        const x = need[d]!;
        if (x > 0 && x > dm[i * R + d]!) continue outer;
      }
      if (i >= this.#leaves) visit(this.#nodeAt[i - this.#leaves]!);
      else {
        stack[top++] = 2 * i + 1;
        stack[top++] = 2 * i;
      }
    }
  }

  /**
   * Visits members in walk order, skipping every subtree for which `useless(dimMax, offset)` says
   * that none of its nodes (whose idle amounts are at most those maxima) can matter, until `visit`
   * returns false. The tree must not change during the walk.
   */
  walk(useless: (dimMax: Float64Array, offset: number) => boolean, visit: (node: number) => boolean): void {
    this.#sync();
    const R = this.#src.R;
    const best = this.#best;
    const dm = this.#dimMax;
    const leaves = this.#leaves;
    // Best first: a heap of subtrees by their best member. Popping a subtree descends straight to
    // the child holding that member (still first in order) and queues only the sibling.
    this.#size = 0;
    if (best[1]! >= 0 && !useless(dm, R)) this.#push(1);
    while (this.#size > 0) {
      let i = this.#pop();
      // What `visit` did since this subtree was queued may have made it useless.
      if (useless(dm, i * R)) continue;
      while (i < leaves) {
        const l = 2 * i;
        const r = l + 1;
        const first = this.#better(l, r);
        const second = first === l ? r : l;
        // Queued unchecked: most queued siblings are never popped (a walk usually ends after a
        // few nodes), and one that is gets its `useless` check then.
        if (best[second]! >= 0) this.#push(second);
        i = best[first]! >= 0 && !useless(dm, first * R) ? first : -1;
        if (i < 0) break;
      }
      if (i >= 0 && !visit(this.#nodeAt[i - leaves]!)) return;
    }
  }

  /** Of two sibling subtrees, the one whose best member comes first (an empty one never does). */
  #better(l: number, r: number): number {
    return this.#best[r]! >= 0 && (this.#best[l]! < 0 || this.#before(r, l)) ? r : l;
  }

  #push(i: number): void {
    if (this.#size === this.#heap.length) {
      const grown = new Int32Array(this.#size * 2);
      grown.set(this.#heap);
      this.#heap = grown;
    }
    const heap = this.#heap;
    let k = this.#size++;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!this.#before(i, heap[p]!)) break;
      heap[k] = heap[p]!;
      k = p;
    }
    heap[k] = i;
  }

  #pop(): number {
    const heap = this.#heap;
    const out = heap[0]!;
    const size = --this.#size;
    const last = heap[size]!;
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && this.#before(heap[r]!, heap[l]!) ? r : l;
      if (!this.#before(heap[c]!, last)) break;
      heap[k] = heap[c]!;
      k = c;
    }
    heap[k] = last;
    return out;
  }
}
