// Small builders for snapshots in tests. Units: cpu in millicores, memory in bytes.

import type {
  ClusterSnapshot,
  FixedReplicaGroup,
  JobSpec,
  JobState,
  NodeInfo,
  OtherPod,
  PlacementConstraints,
  ReplicaInstance,
  Resources,
  Taint,
  WorkerGroup,
} from '../../../../src/scheduler/types.ts';

export const Gi = 1024 ** 3;
export const Mi = 1024 ** 2;

export function cpu(cores: number): number {
  return Math.round(cores * 1000);
}

export function node(name: string, allocatable: Resources, extra: Partial<Omit<NodeInfo, 'name' | 'allocatable'>> = {}): NodeInfo {
  return {
    name,
    allocatable,
    labels: extra.labels ?? {},
    taints: extra.taints ?? [],
    unschedulable: extra.unschedulable ?? false,
    ready: extra.ready ?? true,
  };
}

/** The paper's testbed: 3 worker nodes, each 10 cpu and 32Gi. */
export function paperTestbed(): NodeInfo[] {
  return ['node-1', 'node-2', 'node-3'].map((n) => node(n, { cpu: cpu(10), memory: 32 * Gi }));
}

export interface JobOptions {
  readonly priority?: number;
  readonly submittedAt?: number;
  readonly ps?: Resources;
  readonly psCount?: number;
  readonly worker?: Resources;
  readonly min?: number;
  readonly max?: number;
  readonly constraints?: PlacementConstraints;
  readonly psConstraints?: PlacementConstraints;
  readonly extraFixed?: readonly FixedReplicaGroup[];
  readonly scalingCurve?: readonly number[];
  readonly noWorkers?: boolean;
}

export function jobSpec(key: string, o: JobOptions = {}): JobSpec {
  const fixed: FixedReplicaGroup[] = [];
  if ((o.psCount ?? 1) > 0) {
    fixed.push({
      type: 'PS',
      count: o.psCount ?? 1,
      requests: o.ps ?? { cpu: cpu(1), memory: 2 * Gi },
      constraints: o.psConstraints ?? o.constraints ?? {},
    });
  }
  fixed.push(...(o.extraFixed ?? []));
  const workers: WorkerGroup | undefined = o.noWorkers
    ? undefined
    : {
        type: 'Worker',
        min: o.min ?? 1,
        max: o.max ?? 4,
        requests: o.worker ?? { cpu: cpu(2), memory: 4 * Gi },
        constraints: o.constraints ?? {},
        ...(o.scalingCurve === undefined ? {} : { scalingCurve: o.scalingCurve }),
      };
  return { key, priority: o.priority ?? 0, submittedAt: o.submittedAt ?? 0, fixed, ...(workers === undefined ? {} : { workers }) };
}

export function waiting(key: string, o: JobOptions = {}): JobState {
  return { spec: jobSpec(key, o), phase: 'waiting', replicas: [] };
}

/** A running job whose replicas are given as `type:index@node` strings (e.g. `PS:0@node-1`). */
export function running(key: string, replicas: readonly string[], o: JobOptions & { createdAt?: number } = {}): JobState {
  return { spec: jobSpec(key, o), phase: 'running', replicas: replicas.map((r) => replica(r, o.createdAt)) };
}

export function replica(s: string, createdAt?: number): ReplicaInstance {
  const m = /^([^:]+):(\d+)(?:@(.+))?$/.exec(s);
  if (m === null) throw new Error(`bad replica ${s}`);
  const base: ReplicaInstance =
    m[3] === undefined ? { type: m[1]!, index: Number(m[2]) } : { type: m[1]!, index: Number(m[2]), node: m[3] };
  return createdAt === undefined ? base : { ...base, createdAt };
}

export function snapshot(
  nodes: readonly NodeInfo[],
  jobs: readonly JobState[],
  o: { now?: number; otherPods?: readonly OtherPod[] } = {},
): ClusterSnapshot {
  return { now: o.now ?? 0, nodes, jobs, otherPods: o.otherPods ?? [] };
}

export function taint(key: string, effect: Taint['effect'], value?: string): Taint {
  return value === undefined ? { key, effect } : { key, value, effect };
}

/** `type:index@node` of every replica, sorted, for compact assertions. */
export function describeReplicas(replicas: readonly ReplicaInstance[]): string[] {
  return replicas.map((r) => `${r.type}:${r.index}@${r.node ?? '-'}`).sort();
}
