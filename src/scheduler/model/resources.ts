// Resource arithmetic over `Resources` maps (the public, readable form). A missing key means zero,
// so every function treats the union of both maps' keys. The hot paths of a scheduling pass use the
// dense vectors of `resource-vector.ts` instead; these map functions are for callers, tests and
// explanations, where clarity beats speed.

import type { Resources } from '../types.ts';

/** The Kubernetes resource whose allocatable is a pod count, not a capacity; see `resource-vector.ts`. */
export const PODS = 'pods';
export const CPU = 'cpu';
export const MEMORY = 'memory';

function keysOf(a: Resources, b: Resources): string[] {
  const keys = new Set<string>(Object.keys(a));
  for (const k of Object.keys(b)) keys.add(k);
  return [...keys].sort();
}

/** Drops zero entries so that equal amounts compare deep-equal however they were computed. */
function compact(r: Record<string, number>): Resources {
  const out: Record<string, number> = {};
  for (const k of Object.keys(r).sort()) {
    const v = r[k] ?? 0;
    if (v !== 0) out[k] = v;
  }
  return out;
}

export function addResources(a: Resources, b: Resources): Resources {
  const out: Record<string, number> = {};
  for (const k of keysOf(a, b)) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return compact(out);
}

export function subtractResources(a: Resources, b: Resources): Resources {
  const out: Record<string, number> = {};
  for (const k of keysOf(a, b)) out[k] = (a[k] ?? 0) - (b[k] ?? 0);
  return compact(out);
}

export function scaleResources(a: Resources, factor: number): Resources {
  const out: Record<string, number> = {};
  for (const k of Object.keys(a)) out[k] = (a[k] ?? 0) * factor;
  return compact(out);
}

export function sumResources(list: Iterable<Resources>): Resources {
  let total: Resources = {};
  for (const r of list) total = addResources(total, r);
  return total;
}

/**
 * Whether `request` fits into `available`: every resource the request asks a positive amount of is
 * available in at least that amount. Resources the request does not ask for are not checked, as in
 * the kube-scheduler's NodeResourcesFit (a node over-committed on memory still takes a pod that
 * requests no memory).
 */
export function fitsIn(request: Resources, available: Resources): boolean {
  for (const k of Object.keys(request)) {
    const need = request[k] ?? 0;
    if (need > 0 && need > (available[k] ?? 0)) return false;
  }
  return true;
}

/** Resources of `request` that `available` lacks, and by how much (empty when it fits). */
export function shortfall(request: Resources, available: Resources): Resources {
  const out: Record<string, number> = {};
  for (const k of Object.keys(request)) {
    const need = request[k] ?? 0;
    const have = available[k] ?? 0;
    if (need > 0 && need > have) out[k] = need - have;
  }
  return compact(out);
}

/**
 * Dominant share (DRF): the largest fraction of `total` that `request` takes of any one resource.
 * Resources the total lacks are ignored when the request does not ask for them and count as an
 * infinite share when it does (nothing can satisfy them).
 */
export function dominantShare(request: Resources, total: Resources): number {
  let share = 0;
  for (const k of Object.keys(request)) {
    const need = request[k] ?? 0;
    if (need <= 0) continue;
    const cap = total[k] ?? 0;
    if (cap <= 0) return Number.POSITIVE_INFINITY;
    share = Math.max(share, need / cap);
  }
  return share;
}

export function isZeroResources(r: Resources): boolean {
  for (const k of Object.keys(r)) if ((r[k] ?? 0) !== 0) return false;
  return true;
}

export function resourcesEqual(a: Resources, b: Resources): boolean {
  for (const k of keysOf(a, b)) if ((a[k] ?? 0) !== (b[k] ?? 0)) return false;
  return true;
}

const KI = 1024;
const UNITS: readonly (readonly [string, number])[] = [
  ['Ti', KI ** 4],
  ['Gi', KI ** 3],
  ['Mi', KI ** 2],
  ['Ki', KI],
];

function trimNumber(n: number): string {
  // One decimal at most: explanations are for people, not for parsing.
  const rounded = Math.round(n * 10) / 10;
  return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1);
}

/** `2000` millicores → `2 cpu`, `500` → `500m cpu`. */
export function formatCpu(millicores: number): string {
  if (millicores % 1000 === 0 || Math.abs(millicores) >= 1000) return `${trimNumber(millicores / 1000)} cpu`;
  return `${trimNumber(millicores)}m cpu`;
}

/** Bytes in the largest binary unit that keeps the number ≥ 1, e.g. `4Gi`, `512Mi`. */
export function formatBytes(bytes: number): string {
  for (const [suffix, size] of UNITS) {
    if (Math.abs(bytes) >= size) return `${trimNumber(bytes / size)}${suffix}`;
  }
  return `${trimNumber(bytes)}B`;
}

export function formatQuantity(name: string, amount: number): string {
  if (name === CPU) return formatCpu(amount);
  if (name === MEMORY) return formatBytes(amount);
  if (name === 'ephemeral-storage') return `${formatBytes(amount)} ephemeral-storage`;
  return `${trimNumber(amount)} ${name}`;
}

/**
 * Human-readable amounts, cpu first, then memory, then the rest by name: `2 cpu / 4Gi / 1 nvidia.com/gpu`.
 * `only` restricts the output to some resource names (e.g. those a job asks for). `pods` is left
 * out unless asked for: a pod count is rarely the reason anything waits.
 */
export function formatResources(r: Resources, only?: readonly string[]): string {
  // Distinct names in display order, by insertion: records have a few resources, and reasons for
  // hundreds of waiting jobs are written every pass (no Set, filter or sort state per call).
  const sorted: string[] = [];
  const add = (k: string): void => {
    if (only === undefined && k === PODS) return;
    let i = sorted.length;
    while (i > 0 && compareDisplayOrder(sorted[i - 1]!, k) > 0) i--;
    if (i > 0 && sorted[i - 1] === k) return;
    sorted.splice(i, 0, k);
  };
  if (only !== undefined) for (const k of only) add(k);
  else for (const k in r) add(k);
  if (sorted.length === 0) return 'nothing';
  let out = formatQuantity(sorted[0]!, r[sorted[0]!] ?? 0);
  for (let i = 1; i < sorted.length; i++) out += ` / ${formatQuantity(sorted[i]!, r[sorted[i]!] ?? 0)}`;
  return out;
}

function displayRank(k: string): number {
  return k === CPU ? 0 : k === MEMORY ? 1 : 2;
}

/** cpu, then memory, then the rest by name. */
function compareDisplayOrder(a: string, b: string): number {
  return displayRank(a) - displayRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
