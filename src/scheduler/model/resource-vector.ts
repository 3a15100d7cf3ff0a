// Dense resource vectors for the hot paths. One pass sees a fixed set of resource names (everything
// any node, pod or job mentions); mapping them to positions once lets "does this replica fit on
// that node" be a loop over a few doubles instead of object-key lookups, which is what makes a pass
// over 5,000 nodes and 3,000 jobs cheap.

import { PODS } from './resources.ts';
import type { Resources } from '../types.ts';

// A record is read by looking up each of the pass's few resource names in it (`typeof … === 'number'`:
// an absent name, or one a prototype happens to have, is skipped), not by walking its keys. Walking
// them with `for…in` and looking each up in a position table made V8 deoptimise the loop again and
// again on the records of a real snapshot ("unexpected name in keyed access": records of one shape
// whose maps were deprecated when a quantity no longer fit a small integer), several times per pass,
// which made reading the other pods several times slower (docs/results/log.md §10.1).
export class ResourceIndex {
  readonly names: readonly string[];
  readonly size: number;
  /** Position of `pods`, or -1 when no node declares a pod capacity. */
  readonly podsDim: number;
  /** Position by name: a prototype-less record, so no name (not even `__proto__`) is inherited. */
  readonly #position: Readonly<Record<string, number>>;

  constructor(names: Iterable<string>) {
    this.names = [...new Set(names)].sort();
    this.size = this.names.length;
    const position: Record<string, number> = Object.create(null) as Record<string, number>;
    this.names.forEach((n, i) => (position[n] = i));
    this.#position = position;
    this.podsDim = position[PODS] ?? -1;
  }

  position(name: string): number | undefined {
    return this.#position[name];
  }

  /**
   * Requests of one pod. A pod always occupies one of a node's `pods` slots even though containers
   * never request `pods` (the kubelet and NodeResourcesFit count pods, not a requested quantity), so
   * the pod dimension is 1 unless the caller said otherwise.
   */
  podRequests(r: Resources): Float64Array {
    const v = new Float64Array(this.size);
    this.writePodRequests(r, v);
    return v;
  }

  /** Writes one pod's requests (see `podRequests`) into a zeroed `out`. */
  writePodRequests(r: Resources, out: Float64Array): void {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const v = r[names[i]!];
      if (typeof v === 'number') out[i] = v;
    }
    if (this.podsDim >= 0 && r[PODS] === undefined) out[this.podsDim] = 1;
  }

  /** Subtracts one pod's requests (see `podRequests`) from `out[offset..]`, without a vector for it. */
  subtractPodRequests(r: Resources, out: Float64Array, offset: number): void {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const v = r[names[i]!];
      if (typeof v === 'number') out[offset + i]! -= v;
    }
    if (this.podsDim >= 0 && r[PODS] === undefined) out[offset + this.podsDim]! -= 1;
  }

  /** Allocatable of one node (see `writeNodeAllocatable`). */
  nodeAllocatable(r: Resources): Float64Array {
    const v = new Float64Array(this.size);
    this.writeNodeAllocatable(r, v, 0);
    return v;
  }

  /** Writes one node's allocatable into `out[offset..]`. A node that declares no pod capacity is not limited by pod count. */
  writeNodeAllocatable(r: Resources, out: Float64Array, offset: number): void {
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const v = r[names[i]!];
      if (typeof v === 'number') out[offset + i] = v;
    }
    if (this.podsDim >= 0 && r[PODS] === undefined) out[offset + this.podsDim] = Number.POSITIVE_INFINITY;
  }

  toResources(v: ArrayLike<number>, offset = 0, includePods = false): Resources {
    const out: Record<string, number> = {};
    for (let i = 0; i < this.size; i++) {
      if (i === this.podsDim && !includePods) continue;
      const x = v[offset + i] ?? 0;
      if (x !== 0 && Number.isFinite(x)) out[this.names[i]!] = x;
    }
    return out;
  }
}

/** `need` fits into `have[offset..offset+need.length)`: only positive needs are checked. */
export function fitsAt(need: Float64Array, have: Float64Array, offset: number): boolean {
  for (let r = 0; r < need.length; r++) {
    const x = need[r]!;
    if (x > 0 && x > have[offset + r]!) return false;
  }
  return true;
}

/**
 * One pass's request vectors, each distinct vector stored once with a small id: thousands of jobs
 * ask for a few shapes, and a shape's cache keys (placement.ts) then name it by id instead of a
 * string of every amount. Interned vectors are shared: read them, never write them.
 */
export class VectorTable {
  readonly #dims: ResourceIndex;
  readonly #scratch: Float64Array;
  /** Buckets by a hash of the amounts; a bucket lists the ids of its vectors. */
  readonly #buckets = new Map<number, number[]>();
  readonly #vectors: Float64Array[] = [];
  readonly #shapeKeys: string[][] = [];

  constructor(dims: ResourceIndex) {
    this.#dims = dims;
    this.#scratch = new Float64Array(dims.size);
  }

  /** The id of `podRequests(r)`, interning it on first sight. */
  idOf(r: Resources): number {
    const v = this.#scratch;
    v.fill(0);
    this.#dims.writePodRequests(r, v);
    let h = 0;
    for (let i = 0; i < v.length; i++) h = (Math.imul(h, 31) + hashNumber(v[i]!)) | 0;
    let bucket = this.#buckets.get(h);
    if (bucket === undefined) {
      bucket = [];
      this.#buckets.set(h, bucket);
    }
    for (const id of bucket) if (sameVector(this.#vectors[id]!, v)) return id;
    const id = this.#vectors.length;
    this.#vectors.push(v.slice());
    bucket.push(id);
    return id;
  }

  vector(id: number): Float64Array {
    return this.#vectors[id]!;
  }

  /** `${id}@${maskId}`, one string per shape for the whole pass (thousands of groups share a few). */
  shapeKey(id: number, maskId: number): string {
    let byMask = this.#shapeKeys[id];
    if (byMask === undefined) {
      byMask = [];
      this.#shapeKeys[id] = byMask;
    }
    return (byMask[maskId] ??= `${id}@${maskId}`);
  }
}

function hashNumber(x: number): number {
  // Amounts are integers in canonical units (millicores, bytes) or ∞; fold the high part in.
  if (!Number.isFinite(x)) return x > 0 ? 0x7f800000 : x < 0 ? -0x800000 : 0x7fc00000;
  return (x | 0) ^ ((x / 4294967296) | 0);
}

/** Equal entries, NaN equal to NaN: one shape however its amounts were written. */
function sameVector(a: Float64Array, b: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return false;
  }
  return true;
}
