// Whether a replica may run on a node, ignoring resources. The operator binds pods by writing
// `spec.nodeName`, which bypasses the kube-scheduler, and the kubelet only rechecks resources and
// the nodeSelector; so every rule the scheduler's filters would apply we must apply ourselves, with
// the same semantics (k8s.io/component-helpers nodeaffinity, k8s.io/api core/v1 ToleratesTaint,
// the NodeUnschedulable and TaintToleration filter plugins).

import type { NodeInfo, NodeSelectorRequirement, NodeSelectorTerm, PlacementConstraints, Taint, Toleration } from '../types.ts';

/** Why a node is not a candidate; `undefined` from `nodeFeasibility` means it is one. */
export type InfeasibleReason = 'NotReady' | 'unschedulable' | 'taint' | 'nodeSelector' | 'nodeAffinity';

/** The taint the NodeUnschedulable plugin checks a cordoned node against. */
export const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/**
 * core/v1 `Toleration.ToleratesTaint`: an empty effect matches every effect, an empty key matches
 * every key (so `{operator: Exists}` tolerates everything), operator defaults to Equal, and Equal
 * compares values with an absent value meaning the empty string.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== taint.effect) return false;
  const key = toleration.key ?? '';
  if (key !== '' && key !== taint.key) return false;
  const operator = toleration.operator ?? 'Equal';
  if (operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  if (tolerations === undefined) return false;
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/**
 * The TaintToleration filter: a NoSchedule or NoExecute taint blocks unless tolerated;
 * PreferNoSchedule only lowers a node's score in the kube-scheduler and never blocks.
 */
export function firstBlockingTaint(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): Taint | undefined {
  for (const taint of taints) {
    if (taint.effect === 'PreferNoSchedule') continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits only, within int64.
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/**
 * A requirement the apimachinery `labels.NewRequirement` would reject makes the whole term invalid,
 * and an invalid term matches no node (`LazyErrorNodeSelector.Match` skips it). Label key/value
 * syntax is not re-validated here: the API server already did that when the pod template was stored.
 */
function requirementIsValid(r: NodeSelectorRequirement): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0;
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    case 'Gt':
    case 'Lt':
      return values.length === 1 && parseInt64(values[0] ?? '') !== undefined;
    default:
      return false;
  }
}

function labelRequirementMatches(r: NodeSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (value === undefined) return false;
      const mine = parseInt64(value);
      const theirs = parseInt64(values[0] ?? '');
      if (mine === undefined || theirs === undefined) return false;
      return r.operator === 'Gt' ? mine > theirs : mine < theirs;
    }
    default:
      return false;
  }
}

/**
 * Field requirements: Kubernetes accepts only In/NotIn with exactly one value; the only field a
 * node exposes is `metadata.name`, every other field reads as the empty string (fields.Set.Get).
 */
function fieldRequirementMatches(r: NodeSelectorRequirement, nodeName: string): boolean | undefined {
  const values = r.values ?? [];
  if ((r.operator !== 'In' && r.operator !== 'NotIn') || values.length !== 1) return undefined; // invalid
  const actual = r.key === 'metadata.name' ? nodeName : '';
  return r.operator === 'In' ? actual === values[0] : actual !== values[0];
}

/** One term: its label and field requirements are ANDed; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Pick<NodeInfo, 'name' | 'labels'>): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (!exprs.every(requirementIsValid)) return false;
  let ok = true;
  for (const f of fields) {
    const m = fieldRequirementMatches(f, node.name);
    if (m === undefined) return false;
    ok &&= m;
  }
  return ok && exprs.every((e) => labelRequirementMatches(e, node.labels));
}

/** Required node affinity: terms are ORed; no terms (or only empty ones) match nothing. */
export function nodeSelectorTermsMatch(terms: readonly NodeSelectorTerm[], node: Pick<NodeInfo, 'name' | 'labels'>): boolean {
  return terms.some((t) => nodeSelectorTermMatches(t, node));
}

export function nodeSelectorMatches(
  selector: Readonly<Record<string, string>> | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (selector === undefined) return true;
  for (const key in selector) {
    if (!Object.hasOwn(labels, key) || labels[key] !== selector[key]) return false;
  }
  return true;
}

/**
 * Whether a replica with these constraints may be placed on the node, resources aside. The first
 * failing rule is returned so explanations can count why nodes were ruled out.
 *
 * - NotReady nodes are never candidates (scheduling.md §5.4): a pod bound there would not start.
 * - A cordoned node is a candidate only for pods tolerating `node.kubernetes.io/unschedulable:NoSchedule`,
 *   exactly as the NodeUnschedulable filter plugin decides (so a catch-all `{operator: Exists}`
 *   toleration, as DaemonSets use, also passes).
 */
export function nodeFeasibility(node: NodeInfo, constraints: PlacementConstraints): InfeasibleReason | undefined {
  if (!node.ready) return 'NotReady';
  if (node.unschedulable && !tolerationsTolerateTaint(constraints.tolerations, UNSCHEDULABLE_TAINT)) return 'unschedulable';
  if (firstBlockingTaint(node.taints, constraints.tolerations) !== undefined) return 'taint';
  if (!nodeSelectorMatches(constraints.nodeSelector, node.labels)) return 'nodeSelector';
  if (constraints.requiredNodeAffinity !== undefined && !nodeSelectorTermsMatch(constraints.requiredNodeAffinity, node)) {
    return 'nodeAffinity';
  }
  return undefined;
}

export function isNodeFeasible(node: NodeInfo, constraints: PlacementConstraints): boolean {
  return nodeFeasibility(node, constraints) === undefined;
}

/**
 * A canonical string for a set of constraints: two replica groups with equal keys have identical
 * candidate nodes, so the per-node feasibility mask is computed once per key and pass.
 */
export function constraintsKey(c: PlacementConstraints): string {
  const sel =
    c.nodeSelector === undefined
      ? []
      : Object.keys(c.nodeSelector)
          .sort()
          .map((k) => [k, c.nodeSelector?.[k]]);
  const tol = (c.tolerations ?? [])
    .map((t) => [t.key ?? '', t.operator ?? 'Equal', t.value ?? '', t.effect ?? ''])
    .map((t) => JSON.stringify(t))
    .sort();
  const aff =
    c.requiredNodeAffinity === undefined
      ? null
      : c.requiredNodeAffinity.map((t) => ({
          e: (t.matchExpressions ?? []).map((r) => [r.key, r.operator, r.values ?? []]),
          f: (t.matchFields ?? []).map((r) => [r.key, r.operator, r.values ?? []]),
        }));
  return JSON.stringify([sel, tol, aff]);
}
