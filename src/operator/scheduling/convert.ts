// Kubernetes objects → the scheduling core's model (pure, no I/O). This is where the operator decides
// what the core sees: a node's allocatable resources and whether pods may go there, each pod's
// requests, and each TFJob's replica groups, priority, arrival time and elastic bounds.
import type { V1Node, V1Pod, V1PodSpec, V1Taint, V1Toleration, V1NodeSelectorTerm } from '@kubernetes/client-node';
import type {
  FixedReplicaGroup,
  JobSpec,
  NodeInfo,
  NodeSelectorTerm,
  PlacementConstraints,
  QoeTarget,
  Resources,
  Taint,
  Toleration,
  WorkerGroup,
} from '../../scheduler/types.ts';
import { canonicalResources } from '../../api/v1/quantity.ts';

export interface DefaultRequests {
  /** Assumed for a container that requests none of these resources (canonical units). */
  readonly cpu: number;
  readonly memory: number;
}

export function nodeInfo(node: V1Node): NodeInfo {
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return {
    name: node.metadata?.name ?? '',
    allocatable: canonicalResources(node.status?.allocatable ?? node.status?.capacity),
    labels: { ...(node.metadata?.labels ?? {}) },
    taints: (node.spec?.taints ?? [])
      .filter(isKnownEffect)
      .map((t): Taint => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect as Taint['effect'] })),
    unschedulable: node.spec?.unschedulable === true,
    ready,
  };
}

function isKnownEffect(t: V1Taint): boolean {
  return t.effect === 'NoSchedule' || t.effect === 'PreferNoSchedule' || t.effect === 'NoExecute';
}

function add(into: Record<string, number>, r: Resources): void {
  for (const [k, v] of Object.entries(r)) into[k] = (into[k] ?? 0) + v;
}

/**
 * Effective requests of a pod spec, as kube-scheduler computes them: the sum of the containers'
 * requests, raised to the largest init container's (sidecars, i.e. restartable init containers,
 * add to the sum), plus the pod overhead. Containers requesting no cpu/memory are counted with the
 * operator's defaults (documented; otherwise a request-less job would fit anywhere any number of times).
 */
export function podSpecRequests(spec: V1PodSpec | undefined, defaults?: DefaultRequests): Record<string, number> {
  const sum: Record<string, number> = {};
  const containerRequests = (c: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }) => {
    // A limit without a request defaults the request to the limit (API server defaulting).
    const r = { ...canonicalResources(c.resources?.limits), ...canonicalResources(c.resources?.requests) };
    if (defaults !== undefined) {
      if (!('cpu' in r)) r.cpu = defaults.cpu;
      if (!('memory' in r)) r.memory = defaults.memory;
    }
    return r;
  };
  const sidecars: Record<string, number> = {};
  for (const c of spec?.containers ?? []) add(sum, containerRequests(c));
  let initMax: Record<string, number> = {};
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      add(sidecars, r);
      continue;
    }
    // A regular init container runs alongside the sidecars started before it.
    const during: Record<string, number> = { ...sidecars };
    add(during, r);
    const next: Record<string, number> = { ...initMax };
    for (const [k, v] of Object.entries(during)) next[k] = Math.max(next[k] ?? 0, v);
    initMax = next;
  }
  add(sum, sidecars);
  for (const [k, v] of Object.entries(initMax)) sum[k] = Math.max(sum[k] ?? 0, v);
  add(sum, canonicalResources(spec?.overhead));
  return sum;
}

export function podRequests(pod: V1Pod, defaults?: DefaultRequests): Record<string, number> {
  return podSpecRequests(pod.spec, defaults);
}

function toleration(t: V1Toleration): Toleration {
  return {
    ...(t.key === undefined || t.key === '' ? {} : { key: t.key }),
    ...(t.operator === 'Exists' || t.operator === 'Equal' ? { operator: t.operator } : {}),
    ...(t.value === undefined ? {} : { value: t.value }),
    ...(t.effect === 'NoSchedule' || t.effect === 'PreferNoSchedule' || t.effect === 'NoExecute' ? { effect: t.effect } : {}),
  };
}

function term(t: V1NodeSelectorTerm): NodeSelectorTerm {
  const req = (r: { key: string; operator: string; values?: string[] }) => ({
    key: r.key,
    operator: r.operator as 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt',
    ...(r.values === undefined ? {} : { values: [...r.values] }),
  });
  return {
    ...(t.matchExpressions ? { matchExpressions: t.matchExpressions.map(req) } : {}),
    ...(t.matchFields ? { matchFields: t.matchFields.map(req) } : {}),
  };
}

/** Everything in a pod spec that restricts nodes and that the kubelet will not check for us. */
export function placementConstraints(spec: V1PodSpec | undefined): PlacementConstraints {
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return {
    ...(spec?.nodeSelector && Object.keys(spec.nodeSelector).length > 0 ? { nodeSelector: { ...spec.nodeSelector } } : {}),
    ...(required && required.length > 0 ? { requiredNodeAffinity: required.map(term) } : {}),
    ...(spec?.tolerations && spec.tolerations.length > 0 ? { tolerations: spec.tolerations.map(toleration) } : {}),
  };
}

export interface ReplicaGroupInput {
  readonly type: string;
  readonly replicas: number;
  readonly template: { spec?: V1PodSpec } | undefined;
}

export interface JobInput {
  readonly key: string;
  readonly priority: number;
  readonly submittedAt: number;
  readonly groups: readonly ReplicaGroupInput[];
  /** Elastic bounds of the Worker group; absent = fixed size (min = max = replicas). */
  readonly workerBounds?: { readonly min: number; readonly max: number };
  /** Declared throughput with 1, 2, ... workers (annotation), for the `ours` scaling knee. */
  readonly scalingCurve?: readonly number[];
  /** The job may be suspended whole (its suspendable annotation). */
  readonly suspendable?: boolean;
  /** Its performance target (`spec.qoe`, resolved). */
  readonly qoe?: QoeTarget;
  /** The ClusterQueue it is charged to, or why it may not be admitted (queues/directory.ts). */
  readonly queue?: string;
  readonly inadmissible?: string;
  readonly defaults: DefaultRequests;
}

/** A TFJob's shape for the core: the Worker group scales, every other replica type is fixed. */
export function jobSpec(input: JobInput): JobSpec {
  const fixed: FixedReplicaGroup[] = [];
  let workers: WorkerGroup | undefined;
  for (const g of input.groups) {
    const spec = g.template?.spec;
    const base = { type: g.type, requests: podSpecRequests(spec, input.defaults), constraints: placementConstraints(spec) };
    if (g.type === 'Worker') {
      const min = input.workerBounds?.min ?? g.replicas;
      const max = input.workerBounds?.max ?? g.replicas;
      if (max > 0)
        workers = {
          ...base,
          min,
          max,
          ...(input.scalingCurve && input.scalingCurve.length > 0 ? { scalingCurve: input.scalingCurve } : {}),
        };
    } else if (g.replicas > 0) {
      fixed.push({ ...base, count: g.replicas });
    }
  }
  return {
    key: input.key,
    priority: input.priority,
    submittedAt: input.submittedAt,
    fixed,
    ...(workers ? { workers } : {}),
    ...(input.suspendable === true ? { suspendable: true } : {}),
    ...(input.qoe === undefined ? {} : { qoe: input.qoe }),
    ...(input.queue === undefined ? {} : { queue: input.queue }),
    ...(input.inadmissible === undefined ? {} : { inadmissible: input.inadmissible }),
  };
}

/**
 * The job with `nodes` taken out of every group's feasible nodes: a `metadata.name NotIn` field
 * requirement per node, ANDed into each required node-affinity term (one term of its own when the
 * template has none), so the core's feasibility masks leave those nodes out like any affinity.
 */
export function avoidingNodes(spec: JobSpec, nodes: readonly string[]): JobSpec {
  if (nodes.length === 0) return spec;
  const notIn = nodes.map((n) => ({ key: 'metadata.name', operator: 'NotIn' as const, values: [n] }));
  const away = (c: PlacementConstraints): PlacementConstraints => {
    const terms = c.requiredNodeAffinity;
    return {
      ...c,
      requiredNodeAffinity:
        terms === undefined ? [{ matchFields: notIn }] : terms.map((t) => ({ ...t, matchFields: [...(t.matchFields ?? []), ...notIn] })),
    };
  };
  return {
    ...spec,
    fixed: spec.fixed.map((g) => ({ ...g, constraints: away(g.constraints) })),
    ...(spec.workers === undefined ? {} : { workers: { ...spec.workers, constraints: away(spec.workers.constraints) } }),
  };
}

/** Parses the scaling-curve annotation; anything malformed is ignored (it is only a hint). */
export function parseScalingCurve(text: string | undefined): number[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const values = text.split(',').map((v) => Number(v.trim()));
  return values.every((v) => Number.isFinite(v) && v >= 0) ? values : undefined;
}
