// fast-check generators of valid cluster snapshots: random nodes (labels, taints, cordons,
// readiness, GPUs, pod capacity), other pods, and jobs, waiting or running with replicas already
// placed by an independent first-fit (so the input itself is never over-committed).

import fc from 'fast-check';
import type {
  ClusterSnapshot,
  JobSpec,
  JobState,
  NodeInfo,
  OtherPod,
  PlacementConstraints,
  ReplicaInstance,
  Resources,
} from '../../../../src/scheduler/types.ts';
import { placementAllowed } from './apply-plan.ts';
import { Gi } from './builders.ts';

const nodeArb = fc.record({
  cores: fc.integer({ min: 4, max: 32 }),
  memGi: fc.integer({ min: 8, max: 96 }),
  gpus: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })),
  pods: fc.option(fc.integer({ min: 2, max: 12 }), { nil: undefined }),
  zone: fc.constantFrom('a', 'b'),
  taint: fc.constantFrom('none', 'none', 'dedicated', 'soft'),
  cordoned: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
  notReady: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
});

type RawNode = typeof nodeArb extends fc.Arbitrary<infer T> ? T : never;

function toNode(i: number, n: RawNode): NodeInfo {
  const allocatable: Record<string, number> = { cpu: n.cores * 1000, memory: n.memGi * Gi };
  if (n.gpus > 0) allocatable['nvidia.com/gpu'] = n.gpus;
  if (n.pods !== undefined) allocatable.pods = n.pods;
  return {
    name: `node-${String(i).padStart(2, '0')}`,
    allocatable,
    labels: { zone: n.zone, 'kubernetes.io/hostname': `node-${i}` },
    taints:
      n.taint === 'dedicated'
        ? [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }]
        : n.taint === 'soft'
          ? [{ key: 'soft', effect: 'PreferNoSchedule' }]
          : [],
    unschedulable: n.cordoned,
    ready: !n.notReady,
  };
}

const constraintsArb: fc.Arbitrary<PlacementConstraints> = fc
  .record({
    selector: fc.constantFrom('none', 'none', 'zone-a', 'zone-b'),
    tolerate: fc.constantFrom('none', 'none', 'dedicated', 'all'),
    affinity: fc.constantFrom('none', 'none', 'none', 'not-b', 'zone-exists'),
  })
  .map((c) => {
    const out: {
      nodeSelector?: Record<string, string>;
      tolerations?: PlacementConstraints['tolerations'];
      requiredNodeAffinity?: PlacementConstraints['requiredNodeAffinity'];
    } = {};
    if (c.selector !== 'none') out.nodeSelector = { zone: c.selector === 'zone-a' ? 'a' : 'b' };
    if (c.tolerate === 'dedicated') out.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }];
    if (c.tolerate === 'all') out.tolerations = [{ operator: 'Exists' }];
    if (c.affinity === 'not-b') out.requiredNodeAffinity = [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b'] }] }];
    if (c.affinity === 'zone-exists') out.requiredNodeAffinity = [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }];
    return out;
  });

const requestsArb: fc.Arbitrary<Resources> = fc
  .record({
    milli: fc.integer({ min: 1, max: 8 }).map((x) => x * 500),
    memGi: fc.integer({ min: 1, max: 8 }),
    gpu: fc.integer({ min: 0, max: 5 }).map((x) => (x === 0 ? 1 : 0)),
  })
  .map((r): Resources =>
    r.gpu > 0 ? { cpu: r.milli, memory: r.memGi * Gi, 'nvidia.com/gpu': 1 } : { cpu: r.milli, memory: r.memGi * Gi },
  );

const jobArb = fc.record({
  priority: fc.constantFrom(0, 0, 0, 5),
  submittedAt: fc.integer({ min: 0, max: 50_000 }),
  psCount: fc.constantFrom(0, 1, 1, 1, 2),
  chief: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
  psRequests: requestsArb,
  workerRequests: requestsArb,
  hasWorkers: fc.integer({ min: 0, max: 9 }).map((x) => x !== 0),
  min: fc.integer({ min: 0, max: 3 }),
  extra: fc.integer({ min: 0, max: 4 }),
  constraints: constraintsArb,
  psConstraints: fc.option(constraintsArb, { nil: undefined }),
  wantRunning: fc.integer({ min: 0, max: 2 }).map((x) => x > 0),
  runningWorkers: fc.nat(),
  createdAgo: fc.integer({ min: 0, max: 200_000 }),
  scalingCurve: fc.option(fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }), { nil: undefined }),
  // What `ours` ranks and suspends by: attained service (worker-seconds; the property tests set the
  // demotion threshold to 1,000 or 10,000), the phase of the job's own progress signal, and whether
  // it may be suspended whole.
  attained: fc.option(fc.constantFrom(0, 500, 5_000, 50_000), { nil: undefined }),
  phase: fc.constantFrom(undefined, undefined, 'Progressing', 'Slowing', 'Converged'),
  growth: fc.option(fc.constantFrom(0, 0.01, 0.2, 1), { nil: undefined }),
  suspendable: fc.boolean(),
});

export interface GeneratedCluster {
  readonly snapshot: ClusterSnapshot;
}

function requestsOf(spec: JobSpec, type: string): Resources {
  if (spec.workers?.type === type) return spec.workers.requests;
  return spec.fixed.find((g) => g.type === type)!.requests;
}

/** First-fit of `replicas` in a seeded node order; undefined when some replica fits nowhere. */
function placeAll(
  spec: JobSpec,
  replicas: readonly { type: string; index: number }[],
  nodes: readonly NodeInfo[],
  used: Map<string, Record<string, number>>,
  rotate: number,
): Map<string, string> | undefined {
  const tentative = new Map<string, Record<string, number>>([...used].map(([k, v]) => [k, { ...v }]));
  const out = new Map<string, string>();
  for (const r of replicas) {
    const req = requestsOf(spec, r.type);
    let placed = false;
    for (let k = 0; k < nodes.length && !placed; k++) {
      const n = nodes[(k + rotate) % nodes.length]!;
      if (!placementAllowed(spec, r.type, n)) continue;
      const u = tentative.get(n.name)!;
      const need: Record<string, number> = { ...req, pods: req.pods ?? 1 };
      const fits = Object.entries(need).every(
        ([key, v]) => v <= 0 || (key === 'pods' && n.allocatable.pods === undefined) || (u[key] ?? 0) + v <= (n.allocatable[key] ?? 0),
      );
      if (!fits) continue;
      for (const [key, v] of Object.entries(need)) u[key] = (u[key] ?? 0) + v;
      out.set(`${r.type}:${r.index}`, n.name);
      placed = true;
    }
    if (!placed) return undefined;
  }
  for (const [k, v] of tentative) used.set(k, v);
  return out;
}

/**
 * `crowded`: few nodes, most jobs running with every elastic worker they can get, so waiting jobs
 * usually need preemption (the interesting case for Scale-In).
 */
function clusterArb(crowded: boolean): fc.Arbitrary<ClusterSnapshot> {
  return fc
    .record({
      nodes: fc.array(nodeArb, { minLength: 1, maxLength: crowded ? 3 : 8 }),
      others: fc.array(fc.record({ node: fc.nat(), cpuFraction: fc.integer({ min: 1, max: 6 }) }), { maxLength: 4 }),
      jobs: fc.array(jobArb, { maxLength: crowded ? 10 : 12 }),
      now: fc.integer({ min: 50_000, max: 400_000 }),
    })
    .map(({ nodes: rawNodes, others, jobs: rawJobs, now }) => {
      const nodes = rawNodes.map((n, i) => toNode(i, n));
      const used = new Map<string, Record<string, number>>(nodes.map((n) => [n.name, {}]));
      const otherPods: OtherPod[] = [];
      others.forEach((o, i) => {
        const n = nodes[o.node % nodes.length]!;
        const u = used.get(n.name)!;
        const cpu = Math.floor(((n.allocatable.cpu ?? 0) * o.cpuFraction) / 10);
        if ((u.cpu ?? 0) + cpu > (n.allocatable.cpu ?? 0)) return;
        if (n.allocatable.pods !== undefined && (u.pods ?? 0) + 1 > n.allocatable.pods) return;
        u.cpu = (u.cpu ?? 0) + cpu;
        u.pods = (u.pods ?? 0) + 1;
        otherPods.push({ key: `kube-system/p${i}`, node: n.name, requests: { cpu } });
      });
      const jobs: JobState[] = rawJobs.map((j, i) => {
        const key = `ns/job-${String(i).padStart(2, '0')}`;
        // In a crowded cluster, waiting jobs are small, hence heavy: they are the ones that preempt.
        // Some running jobs are of the same shape, so equal weights (and the t_j tie-break) occur.
        const small: Resources = { cpu: 500, memory: Gi };
        const isSmall = crowded && (!j.wantRunning || j.runningWorkers % 3 === 0);
        const psRequests = isSmall ? small : j.psRequests;
        const workerRequests = isSmall ? small : j.workerRequests;
        const fixed = [];
        // A TFJob always has some replica in its minimum configuration.
        const psCount = j.psCount === 0 && !j.chief && (!j.hasWorkers || j.min === 0) ? 1 : j.psCount;
        if (psCount > 0) fixed.push({ type: 'PS', count: psCount, requests: psRequests, constraints: j.psConstraints ?? j.constraints });
        if (j.chief) fixed.push({ type: 'Chief', count: 1, requests: workerRequests, constraints: j.constraints });
        const min = j.min;
        const max = min + j.extra;
        const spec: JobSpec = {
          key,
          priority: j.priority,
          submittedAt: j.submittedAt,
          fixed,
          ...(j.hasWorkers
            ? {
                workers: {
                  type: 'Worker',
                  min,
                  max,
                  requests: workerRequests,
                  constraints: j.constraints,
                  ...(j.scalingCurve === undefined ? {} : { scalingCurve: j.scalingCurve }),
                },
              }
            : {}),
          ...(j.suspendable ? { suspendable: true } : {}),
        };
        // Waiting jobs may have run before (a suspended job keeps its attained service).
        const signals: Pick<JobState, 'attainedWorkerSeconds' | 'progress'> = {
          ...(j.attained === undefined ? {} : { attainedWorkerSeconds: j.attained }),
          ...(j.phase === undefined
            ? {}
            : {
                progress: {
                  phase: j.phase,
                  since: now - j.createdAgo,
                  ...(j.growth === undefined ? {} : { growth: j.growth }),
                },
              }),
        };
        if (!j.wantRunning) return { spec, phase: 'waiting', replicas: [], ...signals };
        const workerCount = j.hasWorkers ? (crowded ? max : min + (j.runningWorkers % (j.extra + 1))) : 0;
        const wanted: { type: string; index: number }[] = [];
        for (const g of fixed) for (let k = 0; k < g.count; k++) wanted.push({ type: g.type, index: k });
        // Sparse indices sometimes (a worker that failed and was not replaced).
        const gap = workerCount > 1 && j.runningWorkers % 3 === 0 ? 1 : 0;
        for (let k = 0; k < workerCount; k++) wanted.push({ type: 'Worker', index: k >= 1 ? k + gap : k });
        const placed = placeAll(spec, wanted, nodes, used, i);
        if (placed === undefined) return { spec, phase: 'waiting', replicas: [], ...signals };
        const replicas: ReplicaInstance[] = wanted.map((r) => ({
          type: r.type,
          index: r.index,
          node: placed.get(`${r.type}:${r.index}`)!,
          createdAt: now - j.createdAgo,
        }));
        return { spec, phase: 'running', replicas, ...signals };
      });
      if (crowded) {
        // Leave under half a cpu idle per node: small waiting jobs fit only by preempting.
        for (const n of nodes) {
          const u = used.get(n.name)!;
          const rest = (n.allocatable.cpu ?? 0) - (u.cpu ?? 0) - 300;
          if (rest <= 0 || (n.allocatable.pods !== undefined && (u.pods ?? 0) + 1 > n.allocatable.pods)) continue;
          u.cpu = (u.cpu ?? 0) + rest;
          u.pods = (u.pods ?? 0) + 1;
          otherPods.push({ key: `other/filler-${n.name}`, node: n.name, requests: { cpu: rest } });
        }
      }
      return { now, nodes, otherPods, jobs };
    });
}

export const snapshotArb: fc.Arbitrary<ClusterSnapshot> = fc.oneof(clusterArb(false), clusterArb(true));

/** The same snapshot with every array (and each job's replicas and fixed groups) reordered. */
export function shuffled(snap: ClusterSnapshot, seed: number): ClusterSnapshot {
  let s = seed >>> 0 || 1;
  const rand = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const shuffle = <T>(xs: readonly T[]): T[] => {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  return {
    now: snap.now,
    nodes: shuffle(snap.nodes),
    otherPods: shuffle(snap.otherPods),
    jobs: shuffle(snap.jobs).map((j) => ({ ...j, spec: { ...j.spec, fixed: shuffle(j.spec.fixed) }, replicas: shuffle(j.replicas) })),
  };
}
