// Indexes over nodes that stay exact under single-node updates, so a pass never re-sorts or
// rescans 5,000 nodes after each placement (see also fit-tree.ts).

/**
 * Node indices sorted by a score, highest first, ties by index (= name order); optionally only a
 * subset of the nodes (`members`). Several instances may share one score array, whose owner
 * reports each changed node (`invalidate`, before changing its score). The order is brought up
 * to date when it is read: a few changed nodes move to their new places one by one (O(distance
 * moved) each), many are taken out and merged back in (O(N + d log d)). Most passes change nodes
 * hundreds of times between two reads, so moving every node at every change (thousands of
 * positions each in a cluster of similar nodes) would cost far more than the reads.
 */
/** Up to this many changed nodes are moved one by one when the order is read; more are merged. */
const FEW = 8;

/** Most idle first: higher score first, ties by lower node index. */
function compareScored(sa: number, sb: number, a: number, b: number): number {
  if (sa !== sb) return sa > sb ? -1 : 1;
  return a - b;
}

export class SortedNodes {
  readonly score: Float64Array;
  readonly #order: Int32Array;
  /** Position of each node in `order`, −1 for non-members. */
  readonly #pos: Int32Array;
  /** Members whose score changed since the order was last read, each once, and their score then. */
  #pending: number[] = [];
  readonly #marked: Uint8Array;
  readonly #old: Float64Array;

  constructor(scores: Float64Array, members?: ArrayLike<number>) {
    this.score = scores;
    this.#marked = new Uint8Array(scores.length);
    this.#old = new Float64Array(scores.length);
    const all = members === undefined ? Int32Array.from({ length: scores.length }, (_, i) => i) : Int32Array.from(members);
    // Nothing is pending yet: the scores as they are, without `#key`'s pending-change lookup per
    // comparison (a sort of thousands of nodes per mask and pass).
    this.#order = all.sort((a, b) => compareScored(scores[a]!, scores[b]!, a, b));
    this.#pos = new Int32Array(scores.length).fill(-1);
    for (let i = 0; i < this.#order.length; i++) this.#pos[this.#order[i]!] = i;
  }

  /** The score a node is sorted by: while its change is pending, the one it had. */
  #key(n: number): number {
    return this.#marked[n] === 1 ? this.#old[n]! : this.score[n]!;
  }

  #compare(a: number, b: number): number {
    return compareScored(this.#key(a), this.#key(b), a, b);
  }

  has(n: number): boolean {
    return this.#pos[n]! >= 0;
  }

  /** Notes that a member's score is about to change (in the shared array). */
  invalidate(n: number): void {
    if (this.#pos[n]! < 0 || this.#marked[n] === 1) return;
    this.#marked[n] = 1;
    this.#old[n] = this.score[n]!;
    this.#pending.push(n);
  }

  /**
   * The members in order, current as of this read. The array is updated in place by later reads;
   * a caller that changes scores while walking it must read it again.
   */
  get order(): Int32Array {
    const pending = this.#pending;
    if (pending.length === 0) return this.#order;
    if (pending.length <= FEW) {
      // The order is sorted by the keys: the old scores of the nodes still pending. Moving one
      // node at a time to its new score keeps it so.
      for (const n of pending) {
        this.#marked[n] = 0;
        this.#reposition(n);
      }
    } else {
      this.#merge(pending);
    }
    this.#pending = [];
    return this.#order;
  }

  /** Takes the changed members out, sorts them, and merges them back into the others' order. */
  #merge(changed: number[]): void {
    const order = this.#order;
    const marked = this.#marked;
    // Compact the unchanged members to the end of the array, keeping their order, then merge from the front.
    let w = order.length;
    for (let i = order.length - 1; i >= 0; i--) {
      const n = order[i]!;
      if (marked[n] === 0) order[--w] = n;
    }
    for (const n of changed) marked[n] = 0;
    const moved = Int32Array.from(changed).sort((a, b) => this.#compare(a, b));
    let i = 0;
    let a = w;
    let b = 0;
    while (b < moved.length) {
      if (a < order.length && this.#compare(order[a]!, moved[b]!) < 0) order[i++] = order[a++]!;
      else order[i++] = moved[b++]!;
    }
    // The rest of the unchanged members are already in place (a === i from here on).
    for (let k = 0; k < order.length; k++) this.#pos[order[k]!] = k;
  }

  /** Moves one member to its place after its score changed, all others being in place. */
  #reposition(n: number): void {
    const order = this.#order;
    const pos = this.#pos;
    const p = pos[n]!;
    if (p < 0) return;
    if (p > 0 && this.#compare(n, order[p - 1]!) < 0) {
      // Moves left: the first position in [0, p) whose node n now precedes.
      let lo = 0;
      let hi = p - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.#compare(n, order[mid]!) < 0) hi = mid;
        else lo = mid + 1;
      }
      order.copyWithin(lo + 1, lo, p);
      order[lo] = n;
      for (let i = lo; i <= p; i++) pos[order[i]!] = i;
    } else if (p < order.length - 1 && this.#compare(n, order[p + 1]!) > 0) {
      // Moves right: the last position in (p, end) whose node precedes n.
      let lo = p + 1;
      let hi = order.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.#compare(n, order[mid]!) > 0) lo = mid;
        else hi = mid - 1;
      }
      order.copyWithin(p, p + 1, lo + 1);
      order[lo] = n;
      for (let i = p; i <= lo; i++) pos[order[i]!] = i;
    }
  }
}

/**
 * Exact maximum of one value per node for each of R dimensions (a tournament tree per dimension):
 * O(log N) per update, O(1) per query. Excluded nodes hold −∞.
 */
export class MaxTree {
  readonly #R: number;
  readonly #leaves: number;
  /** Dimension r's tree lives at [r·2L, (r+1)·2L); node i's children are 2i and 2i+1; the root is 1. */
  readonly #tree: Float64Array;

  constructor(nodes: number, dims: number, value: (node: number, dim: number) => number) {
    this.#R = dims;
    let leaves = 1;
    while (leaves < Math.max(1, nodes)) leaves *= 2;
    this.#leaves = leaves;
    this.#tree = new Float64Array(dims * 2 * leaves).fill(Number.NEGATIVE_INFINITY);
    for (let r = 0; r < dims; r++) {
      const base = r * 2 * leaves;
      for (let n = 0; n < nodes; n++) this.#tree[base + leaves + n] = value(n, r);
      for (let i = leaves - 1; i >= 1; i--) this.#tree[base + i] = Math.max(this.#tree[base + 2 * i]!, this.#tree[base + 2 * i + 1]!);
    }
  }

  set(node: number, dim: number, value: number): void {
    const base = dim * 2 * this.#leaves;
    let i = this.#leaves + node;
    this.#tree[base + i] = value;
    for (i >>= 1; i >= 1; i >>= 1) {
      const m = Math.max(this.#tree[base + 2 * i]!, this.#tree[base + 2 * i + 1]!);
      if (this.#tree[base + i] === m) break;
      this.#tree[base + i] = m;
    }
  }

  max(dim: number): number {
    return this.#tree[dim * 2 * this.#leaves + 1]!;
  }

  /** All maxima as a vector (for `fitsAt`). */
  fill(out: Float64Array): Float64Array {
    for (let r = 0; r < this.#R; r++) out[r] = this.max(r);
    return out;
  }
}

/**
 * One score per member node in a tournament tree, for branch-and-bound searches: `search` walks
 * depth first, the higher-scoring child first, and skips every subtree whose best score `prune` rejects, or in which no
 * node has enough of some resource (each tree node also keeps the per-resource maximum of its
 * subtree). Updates O(R log N).
 */
export class ScoreTree {
  readonly #leaves: number;
  readonly #R: number;
  readonly #tree: Float64Array;
  /** Per-resource maxima: tree node i at [i·R, (i+1)·R). */
  readonly #dimMax: Float64Array;
  /** Node index at each leaf (−1: empty) and leaf of each node (−1: not a member). */
  readonly #nodeAt: Int32Array;
  readonly #leafOf: Int32Array;
  readonly #stack: Int32Array;

  constructor(
    nodeCount: number,
    members: ArrayLike<number>,
    R: number,
    score: (node: number) => number,
    values: (node: number, dim: number) => number,
  ) {
    let leaves = 1;
    while (leaves < Math.max(1, members.length)) leaves *= 2;
    this.#leaves = leaves;
    this.#R = R;
    this.#tree = new Float64Array(2 * leaves).fill(Number.NEGATIVE_INFINITY);
    this.#dimMax = new Float64Array(2 * leaves * R).fill(Number.NEGATIVE_INFINITY);
    this.#nodeAt = new Int32Array(leaves).fill(-1);
    this.#leafOf = new Int32Array(nodeCount).fill(-1);
    // Members in index order, so that on equal scores the left (lower-named) node comes first.
    const sorted = Int32Array.from(members).sort();
    for (let i = 0; i < sorted.length; i++) {
      const n = sorted[i]!;
      this.#nodeAt[i] = n;
      this.#leafOf[n] = i;
      this.#tree[leaves + i] = score(n);
      for (let r = 0; r < R; r++) this.#dimMax[(leaves + i) * R + r] = values(n, r);
    }
    for (let i = leaves - 1; i >= 1; i--) this.#pull(i);
    // Depth-first with at most one pending sibling per level.
    this.#stack = new Int32Array(2 * (Math.log2(leaves) + 2));
  }

  #pull(i: number): void {
    const R = this.#R;
    this.#tree[i] = Math.max(this.#tree[2 * i]!, this.#tree[2 * i + 1]!);
    for (let r = 0; r < R; r++) this.#dimMax[i * R + r] = Math.max(this.#dimMax[2 * i * R + r]!, this.#dimMax[(2 * i + 1) * R + r]!);
  }

  set(node: number, score: number, values: Float64Array, offset: number): void {
    const leaf = this.#leafOf[node]!;
    if (leaf < 0) return;
    let i = this.#leaves + leaf;
    this.#tree[i] = score;
    for (let r = 0; r < this.#R; r++) this.#dimMax[i * this.#R + r] = values[offset + r]!;
    for (i >>= 1; i >= 1; i >>= 1) this.#pull(i);
  }

  /**
   * Visits member nodes that could hold `need` (by the per-resource maxima), higher-scoring
   * subtrees first (left first on ties), never entering a subtree whose maximum score `prune`
   * rejects; `prune` is re-evaluated as `visit` raises its bar.
   */
  search(need: Float64Array, prune: (subtreeMax: number) => boolean, visit: (node: number, score: number) => void): void {
    const stack = this.#stack;
    const tree = this.#tree;
    const R = this.#R;
    let top = 0;
    stack[top++] = 1;
    outer: while (top > 0) {
      const i = stack[--top]!;
      const value = tree[i]!;
      if (value === Number.NEGATIVE_INFINITY || prune(value)) continue;
      for (let r = 0; r < R; r++) {
        const x = need[r]!;
        if (x > 0 && x > this.#dimMax[i * R + r]!) continue outer;
      }
      if (i >= this.#leaves) {
        const n = this.#nodeAt[i - this.#leaves]!;
        if (n >= 0) visit(n, value);
        continue;
      }
      const l = 2 * i;
      const r = l + 1;
      // Push the worse child first so the better one is explored next.
      if (tree[r]! > tree[l]!) {
        stack[top++] = l;
        stack[top++] = r;
      } else {
        stack[top++] = r;
        stack[top++] = l;
      }
    }
  }
}
