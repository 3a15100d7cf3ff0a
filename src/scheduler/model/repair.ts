// Re-placing replicas that a running job lost (a PS being restarted by its restart policy, a worker
// whose node disappeared). The policies plan admissions and scaling; this fills the holes of jobs
// already admitted, on what is left after the policy's plan, preferring nodes that already host the
// job (PS↔worker traffic stays local, as the placement rule wants). Pure and deterministic, like
// `schedule()`: the operator calls `planRepairs` right after it, and so could the simulator.
import { isNodeFeasible } from './feasibility.ts';
import { addResources, fitsIn, subtractResources } from './resources.ts';
import type { ClusterSnapshot, NodeInfo, Plan, ReplicaGroupSpec, Resources } from '../types.ts';

export interface MissingReplica {
  readonly job: string;
  readonly group: ReplicaGroupSpec;
  /** Pod name for fixed replicas (PS, Chief, ...); undefined for an elastic worker (any free index). */
  readonly name?: string;
}

export interface RepairPlacement {
  readonly replica: MissingReplica;
  readonly node: string;
}

function usable(node: NodeInfo): boolean {
  return node.ready && !node.unschedulable;
}

/**
 * How strongly each node already hosts a job's replicas: a PS counts 10, a worker 1. A replacement
 * goes where the job's PS is first (its traffic is PS↔worker), then where most of its workers are.
 */
export function hostWeights(snapshot: ClusterSnapshot): Map<string, Map<string, number>> {
  const byJob = new Map<string, Map<string, number>>();
  for (const j of snapshot.jobs) {
    const hosts = new Map<string, number>();
    for (const r of j.replicas) if (r.node !== undefined) hosts.set(r.node, (hosts.get(r.node) ?? 0) + (r.type === 'PS' ? 10 : 1));
    byJob.set(j.spec.key, hosts);
  }
  return byJob;
}

/**
 * Placements for the missing replicas of running jobs, on the capacity the plan leaves idle.
 * `preferredNode`: a node a job's replacement should go to when it is a candidate (a migration).
 */
export function planRepairs(
  snapshot: ClusterSnapshot,
  plan: Plan,
  missing: readonly MissingReplica[],
  preferredNode?: (job: string) => string | undefined,
): RepairPlacement[] {
  if (missing.length === 0) return [];
  const hosts = hostWeights(snapshot);
  const none = new Map<string, number>();
  const hostsOf = (job: string): ReadonlyMap<string, number> => {
    const preferred = preferredNode?.(job);
    // Weighted above any PS (10 each): the candidates are still only the feasible nodes with room.
    return preferred === undefined
      ? (hosts.get(job) ?? none)
      : new Map([...(hosts.get(job) ?? none), [preferred, Number.MAX_SAFE_INTEGER]]);
  };
  return placeMissing(snapshot, idleAfterPlan(snapshot, plan), missing, hostsOf);
}

/** Idle resources per usable node after the snapshot's pods and the plan's admissions, scale-ins and scale-outs. */
export function idleAfterPlan(snapshot: ClusterSnapshot, plan: Plan): Map<string, Resources> {
  const idle = new Map<string, Resources>();
  for (const n of snapshot.nodes) if (usable(n)) idle.set(n.name, n.allocatable);
  const take = (node: string | undefined, r: Resources) => {
    if (node === undefined) return;
    const cur = idle.get(node);
    if (cur !== undefined) idle.set(node, subtractResources(cur, r));
  };
  const give = (node: string | undefined, r: Resources) => {
    if (node === undefined) return;
    const cur = idle.get(node);
    if (cur !== undefined) idle.set(node, addResources(cur, r));
  };
  const requestsOf = new Map<string, (type: string) => Resources>();
  for (const j of snapshot.jobs) {
    const groups = new Map<string, Resources>();
    for (const g of j.spec.fixed) groups.set(g.type, g.requests);
    if (j.spec.workers) groups.set(j.spec.workers.type, j.spec.workers.requests);
    requestsOf.set(j.spec.key, (type) => groups.get(type) ?? {});
    if (j.phase !== 'running') continue;
    for (const r of j.replicas) take(r.node, groups.get(r.type) ?? {});
  }
  for (const p of snapshot.otherPods) take(p.node, p.requests);
  const req = (job: string, type: string) => requestsOf.get(job)?.(type) ?? {};
  for (const a of plan.admit) for (const r of a.replicas) take(r.node, req(a.job, r.type));
  for (const s of plan.scaleOut) for (const r of s.add) take(r.node, req(s.job, r.type));
  for (const s of plan.scaleIn) for (const r of s.remove) give(r.node, req(s.job, r.type));
  for (const b of plan.bind) take(b.replica.node, req(b.job, b.replica.type));
  return idle;
}

/**
 * First-fit of each missing replica: nodes already hosting the job first (most replicas first), then
 * the most idle node (by the replica's dominant resource). Deterministic: ties break by node name.
 * Replicas that fit nowhere are left out; they are retried on the next pass.
 */
export function placeMissing(
  snapshot: ClusterSnapshot,
  idle: Map<string, Resources>,
  missing: readonly MissingReplica[],
  hostsOf: (job: string) => ReadonlyMap<string, number>,
): RepairPlacement[] {
  const nodes = new Map(snapshot.nodes.map((n) => [n.name, n]));
  const out: RepairPlacement[] = [];
  for (const m of missing) {
    const hosts = hostsOf(m.job);
    const candidates = [...idle.entries()]
      .filter(([name, free]) => {
        const node = nodes.get(name);
        return node !== undefined && isNodeFeasible(node, m.group.constraints) && fitsIn(m.group.requests, free);
      })
      .sort(([a, fa], [b, fb]) => {
        const ha = hosts.get(a) ?? 0;
        const hb = hosts.get(b) ?? 0;
        if (ha !== hb) return hb - ha;
        const da = headroom(fa, m.group.requests);
        const db = headroom(fb, m.group.requests);
        if (da !== db) return db - da;
        return a < b ? -1 : a > b ? 1 : 0;
      });
    const chosen = candidates[0];
    if (chosen === undefined) continue;
    idle.set(chosen[0], subtractResources(chosen[1], m.group.requests));
    out.push({ replica: m, node: chosen[0] });
  }
  return out;
}

/** The smallest ratio of free to requested over the requested resources (bigger = roomier). */
function headroom(free: Resources, request: Resources): number {
  let min = Infinity;
  for (const [k, v] of Object.entries(request)) if (v > 0) min = Math.min(min, (free[k] ?? 0) / v);
  return min === Infinity ? 0 : min;
}
