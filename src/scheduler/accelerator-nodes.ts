// Replicas that request no accelerator keep off accelerator nodes when other nodes have room
// (scheduling.md §5, "CPU-only replicas on a mixed cluster"; measured in simulation-results.md §1f).
//
// An accelerator node is one whose allocatable has a positive amount of an extended resource
// (Kubernetes' term: a domain-qualified name outside kubernetes.io, e.g. nvidia.com/gpu). Its cpu
// and memory are the scarcest in the cluster, since only there can a GPU replica use its GPU: a
// CPU-only job or a GPU job's PS placed there can leave a GPU without the cpu a worker needs.
//
// The rule, for the placement of a job's replicas: those that request no extended resource are
// placed on the nodes without any first (the placement rule of placement.ts on those nodes alone),
// the others as before; only when that finds no placement is the whole job placed as before, i.e.
// on every node. A cluster with no accelerator nodes, or only accelerator nodes, is unchanged.

import type { ClusterState } from './cluster-state.ts';
import type { CompiledGroup } from './job-model.ts';

/**
 * Extended resources, as Kubernetes defines them (`IsExtendedResourceName`): a name with a domain
 * that is not kubernetes.io or a subdomain of it, and not a quota `requests.` name.
 */
export function isExtendedResource(name: string): boolean {
  const slash = name.indexOf('/');
  if (slash < 0 || name.startsWith('requests.')) return false;
  const domain = name.slice(0, slash);
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/** Positions of the extended resources among a pass's resource names. */
function extendedDims(state: ClusterState): number[] {
  const dims: number[] = [];
  state.dims.names.forEach((name, d) => {
    if (isExtendedResource(name)) dims.push(d);
  });
  return dims;
}

/** Whether a replica of the group requests some extended resource. */
export function requestsAccelerator(state: ClusterState, group: CompiledGroup): boolean {
  for (const d of extendedDims(state)) if (group.vec[d]! > 0) return true;
  return false;
}

// The nodes' allocatable is shared by every state of a pass (and never changes in it): one mask per pass.
const plainMasks = new WeakMap<Float64Array, Uint8Array | null>();

/**
 * 1 for each node with no extended resource (a "plain" node), or undefined when there is nothing
 * to prefer: every node is plain, or none is.
 */
export function plainNodes(state: ClusterState): Uint8Array | undefined {
  let mask = plainMasks.get(state.alloc);
  if (mask === undefined) {
    mask = computePlainNodes(state);
    plainMasks.set(state.alloc, mask);
  }
  return mask ?? undefined;
}

function computePlainNodes(state: ClusterState): Uint8Array | null {
  const dims = extendedDims(state);
  if (dims.length === 0) return null;
  const N = state.nodes.length;
  const R = state.R;
  const mask = new Uint8Array(N);
  let plain = 0;
  for (let n = 0; n < N; n++) {
    if (dims.every((d) => !(state.alloc[n * R + d]! > 0))) {
      mask[n] = 1;
      plain++;
    }
  }
  return plain === 0 || plain === N ? null : mask;
}

/** `mask` ∩ `allowed` (a new array; `allowed` undefined: `mask` itself). */
export function within(mask: Uint8Array, allowed: Uint8Array | undefined): Uint8Array {
  if (allowed === undefined) return mask;
  const out = new Uint8Array(mask.length);
  for (let n = 0; n < mask.length; n++) out[n] = mask[n]! & allowed[n]!;
  return out;
}
