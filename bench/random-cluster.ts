// A seeded random cluster for benchmarking one scheduling pass: heterogeneous CPU and GPU nodes
// (taints, zones, cordoned and NotReady nodes, pod capacity, DaemonSet-like other pods), running
// jobs already placed (first fit, 70–90% full), and waiting jobs of assorted shapes and ages.

import type {
  ClusterSnapshot,
  JobSpec,
  JobState,
  NodeInfo,
  OtherPod,
  PlacementConstraints,
  ReplicaInstance,
  Resources,
} from '../src/scheduler/types.ts';
import { seededRandom as rng } from '../lab/workloads/random.ts';

const Gi = 1024 ** 3;

export interface ClusterSize {
  readonly nodes: number;
  readonly waiting: number;
  readonly running: number;
}

/**
 * `busy`: other tenants' pods fill every node to 80–95%, so most waiting jobs do not fit and the
 * pass is mostly failed placements and preemption attempts (why 2,000 jobs would be waiting).
 * `burst`: the running jobs are all there is, most of the cluster is idle, and the pass admits a
 * burst of arrivals (the most placements per pass).
 * `elastic`: `burst` where every job declares a scaling curve and no waiting job is starving yet,
 * so `ours` also weighs growth before admission and preemption by gain (`gain.ts`).
 */
export type Scenario = 'busy' | 'burst' | 'elastic';

/** A concave curve (throughput ∝ workers^0.8), drawn from nothing random so the other scenarios stay identical. */
function concaveCurve(max: number): number[] {
  return Array.from({ length: max }, (_, i) => Math.round(100 * (i + 1) ** 0.8));
}

const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' } as const;

export function randomSnapshot(size: ClusterSize, seed: number, scenario: Scenario = 'busy'): ClusterSnapshot {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const now = 10 * 3600_000;

  const nodes: NodeInfo[] = [];
  for (let i = 0; i < size.nodes; i++) {
    const gpu = r() < 0.3;
    const allocatable: Record<string, number> = gpu
      ? { cpu: 64_000, memory: 256 * Gi, 'nvidia.com/gpu': pick([4, 8]), pods: 110 }
      : { cpu: pick([32_000, 48_000, 64_000]), memory: pick([128, 192, 256]) * Gi, pods: 110 };
    nodes.push({
      name: `node-${String(i).padStart(5, '0')}`,
      allocatable,
      labels: { zone: pick(['a', 'b', 'c']), ...(gpu ? { accelerator: 'gpu' } : {}), 'kubernetes.io/hostname': `node-${i}` },
      taints: gpu
        ? [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }]
        : r() < 0.05
          ? [{ key: 'maintenance', effect: 'PreferNoSchedule' }]
          : [],
      unschedulable: r() < 0.02,
      ready: r() >= 0.02,
    });
  }

  const used = nodes.map((): Record<string, number> => ({}));
  const otherPods: OtherPod[] = [];
  nodes.forEach((n, i) => {
    // Node-local agents (log shipper, exporter): every node runs one.
    const requests = { cpu: 250, memory: Gi / 2 };
    otherPods.push({ key: `kube-system/agent-${i}`, node: n.name, requests });
    add(used[i]!, requests);
  });

  // Job templates: CPU jobs in a few sizes, GPU jobs (Philly-like), some pinned to a zone.
  const cpuConstraints = (): PlacementConstraints => (r() < 0.2 ? { nodeSelector: { zone: pick(['a', 'b', 'c']) } } : {});
  const gpuConstraints = (): PlacementConstraints => ({ nodeSelector: { accelerator: 'gpu' }, tolerations: [GPU_TOLERATION] });
  const makeSpec = (key: string, submittedAt: number): JobSpec => {
    const gpu = r() < 0.35;
    const min = gpu ? pick([1, 1, 2, 3, 4]) : int(1, 4);
    const max = min + (gpu ? pick([0, 3, 5, 7, 11]) : int(0, 8));
    const worker: Resources = gpu
      ? { cpu: 12_000, memory: 48 * Gi, 'nvidia.com/gpu': 1 }
      : { cpu: pick([1000, 2000, 4000, 8000]), memory: pick([2, 4, 8, 16, 32]) * Gi };
    const constraints = gpu ? gpuConstraints() : cpuConstraints();
    return {
      key,
      priority: r() < 0.1 ? 1000 : 0,
      submittedAt,
      fixed: [
        {
          type: 'PS',
          count: r() < 0.9 ? 1 : 2,
          requests: { cpu: pick([1000, 2000, 4000]), memory: pick([2, 4, 16]) * Gi },
          constraints: gpu ? { nodeSelector: {}, tolerations: [GPU_TOLERATION] } : constraints,
        },
      ],
      workers: {
        type: 'Worker',
        min,
        max,
        requests: worker,
        constraints,
        ...(scenario === 'elastic' ? { scalingCurve: concaveCurve(max) } : {}),
      },
    };
  };

  const order = nodes.map((_, i) => i);
  const jobs: JobState[] = [];
  let placedRunning = 0;
  for (let attempt = 0; placedRunning < size.running && attempt < size.running * 20; attempt++) {
    const spec = makeSpec(`team-${attempt % 50}/run-${attempt}`, now - int(600_000, 8 * 3600_000));
    const workers = int(spec.workers!.min, spec.workers!.max);
    const replicas: { type: string; index: number; requests: Resources; constraints: PlacementConstraints }[] = [];
    for (const g of spec.fixed)
      for (let k = 0; k < g.count; k++) replicas.push({ type: g.type, index: k, requests: g.requests, constraints: g.constraints });
    for (let k = 0; k < workers; k++)
      replicas.push({ type: 'Worker', index: k, requests: spec.workers!.requests, constraints: spec.workers!.constraints });
    // First fit from a random start, remembering tentative usage so a job is placed whole or not at all.
    const start = int(0, nodes.length - 1);
    const tentative = new Map<number, Record<string, number>>();
    const placed: ReplicaInstance[] = [];
    for (const rep of replicas) {
      let done = false;
      for (let k = 0; k < Math.min(nodes.length, 400) && !done; k++) {
        const i = order[(start + k) % nodes.length]!;
        const n = nodes[i]!;
        if (!allowed(n, rep.constraints)) continue;
        const u = tentative.get(i) ?? { ...used[i]! };
        if (!fits(rep.requests, u, n.allocatable, 0.85)) continue;
        add(u, rep.requests);
        tentative.set(i, u);
        placed.push({ type: rep.type, index: rep.index, node: n.name, createdAt: now - int(0, 3600_000) });
        done = true;
      }
      if (!done) break;
    }
    if (placed.length !== replicas.length) continue;
    for (const [i, u] of tentative) used[i] = u;
    jobs.push({ spec, phase: 'running', replicas: placed });
    placedRunning++;
  }
  if (scenario === 'busy') {
    nodes.forEach((n, i) => {
      const u = used[i]!;
      const target = 0.8 + 0.15 * r();
      const cpu = Math.max(0, Math.floor((n.allocatable.cpu ?? 0) * target - (u.cpu ?? 0)));
      const memory = Math.max(0, Math.floor((n.allocatable.memory ?? 0) * target - (u.memory ?? 0)));
      const requests: Resources = {
        cpu,
        memory,
        ...(n.allocatable['nvidia.com/gpu'] !== undefined && r() < 0.5
          ? { 'nvidia.com/gpu': Math.max(0, (n.allocatable['nvidia.com/gpu'] ?? 0) - (u['nvidia.com/gpu'] ?? 0) - 1) }
          : {}),
      };
      otherPods.push({ key: `tenant/batch-${i}`, node: n.name, requests });
      add(u, requests);
    });
  }
  for (let i = 0; i < size.waiting; i++) {
    // Waiting for up to 2 h, so some have passed the default 30-minute STARVELIMIT (elastic: up to 20 min, none has).
    jobs.push({
      spec: makeSpec(`team-${i % 50}/wait-${i}`, now - int(0, scenario === 'elastic' ? 20 * 60_000 : 2 * 3600_000)),
      phase: 'waiting',
      replicas: [],
    });
  }
  return { now, nodes, otherPods, jobs };
}

function add(u: Record<string, number>, r: Resources): void {
  for (const [k, v] of Object.entries(r)) u[k] = (u[k] ?? 0) + v;
  u.pods = (u.pods ?? 0) + 1;
}

function fits(req: Resources, u: Record<string, number>, alloc: Resources, fill: number): boolean {
  for (const [k, v] of Object.entries(req)) if (v > 0 && (u[k] ?? 0) + v > (alloc[k] ?? 0) * fill) return false;
  return (u.pods ?? 0) + 1 <= (alloc.pods ?? Number.POSITIVE_INFINITY);
}

function allowed(n: NodeInfo, c: PlacementConstraints): boolean {
  if (!n.ready || n.unschedulable) return false;
  for (const t of n.taints) {
    if (t.effect === 'PreferNoSchedule') continue;
    if (!(c.tolerations ?? []).some((tol) => tol.key === t.key)) return false;
  }
  for (const [k, v] of Object.entries(c.nodeSelector ?? {})) if (n.labels[k] !== v) return false;
  return true;
}
