// Applies plans the way the controller or simulator would, and checks cluster invariants with
// code independent of the scheduler's own (plain maps, no vectors, no feasibility masks).

import { schedule, type SimPolicyName } from '../../../../lab/simulator/policies/registry.ts';
import type { SchedulerConfig } from '../../../../src/scheduler/config.ts';
import type { ClusterSnapshot, JobSpec, JobState, NodeInfo, Plan, ReplicaInstance, Resources } from '../../../../src/scheduler/types.ts';

const sameReplica = (a: ReplicaInstance, b: ReplicaInstance): boolean => a.type === b.type && a.index === b.index;

/** The snapshot after the caller carried out `plan` (time unchanged). */
export function applyPlan(snap: ClusterSnapshot, plan: Plan): ClusterSnapshot {
  const jobs = snap.jobs.map((j): JobState => {
    const key = j.spec.key;
    // Suspensions first: the job goes back to the queue without pods.
    if (plan.suspend.some((x) => x.job === key)) return { spec: j.spec, phase: 'waiting', replicas: [] };
    const admission = plan.admit.find((a) => a.job === key);
    let replicas = admission === undefined ? [...j.replicas] : [...admission.replicas];
    const phase = admission === undefined ? j.phase : 'running';
    for (const s of plan.scaleIn.filter((x) => x.job === key)) replicas = replicas.filter((r) => !s.remove.some((x) => sameReplica(x, r)));
    for (const s of plan.scaleOut.filter((x) => x.job === key)) replicas.push(...s.add);
    for (const b of plan.bind.filter((x) => x.job === key)) replicas = replicas.map((r) => (sameReplica(r, b.replica) ? b.replica : r));
    return { spec: j.spec, phase, replicas };
  });
  return { ...snap, jobs };
}

function requestsOf(spec: JobSpec, type: string): Resources | undefined {
  if (spec.workers?.type === type) return spec.workers.requests;
  return spec.fixed.find((g) => g.type === type)?.requests;
}

/** Requests bound to each node (managed replicas of unfinished jobs and other pods), pods counted. */
export function nodeUsage(snap: ClusterSnapshot): Map<string, Record<string, number>> {
  const usage = new Map<string, Record<string, number>>(snap.nodes.map((n) => [n.name, {}]));
  const add = (nodeName: string, r: Resources): void => {
    const u = usage.get(nodeName);
    if (u === undefined) return;
    for (const [k, v] of Object.entries(r)) u[k] = (u[k] ?? 0) + v;
    if (r.pods === undefined) u.pods = (u.pods ?? 0) + 1;
  };
  for (const p of snap.otherPods) add(p.node, p.requests);
  for (const j of snap.jobs) {
    if (j.phase === 'finished') continue;
    for (const r of j.replicas) {
      const req = requestsOf(j.spec, r.type);
      if (r.node !== undefined && req !== undefined) add(r.node, req);
    }
  }
  return usage;
}

/** Nodes whose bound requests exceed allocatable in some resource (a missing pods capacity is unlimited). */
export function overcommittedNodes(snap: ClusterSnapshot): string[] {
  const usage = nodeUsage(snap);
  const bad: string[] = [];
  for (const n of snap.nodes) {
    const u = usage.get(n.name) ?? {};
    for (const [k, v] of Object.entries(u)) {
      if (k === 'pods' && n.allocatable.pods === undefined) continue;
      if (v > 0 && v > (n.allocatable[k] ?? 0)) {
        bad.push(`${n.name}:${k} ${v} > ${n.allocatable[k] ?? 0}`);
        break;
      }
    }
  }
  return bad;
}

/**
 * An independent oracle for the constraints the property tests generate: nodeSelector equality,
 * NoSchedule/NoExecute taints against Equal/Exists tolerations, cordon, readiness, and
 * requiredNodeAffinity terms made of In/NotIn/Exists expressions.
 */
export function placementAllowed(spec: JobSpec, type: string, n: NodeInfo): boolean {
  const group = spec.workers?.type === type ? spec.workers : spec.fixed.find((g) => g.type === type);
  if (group === undefined) return false;
  const c = group.constraints;
  if (!n.ready) return false;
  const tolerated = (key: string, value: string | undefined, effect: string): boolean =>
    (c.tolerations ?? []).some(
      (t) =>
        (t.effect === undefined || t.effect === effect) &&
        (t.key === undefined || t.key === '' || t.key === key) &&
        (t.operator === 'Exists' || (t.value ?? '') === (value ?? '')),
    );
  if (n.unschedulable && !tolerated('node.kubernetes.io/unschedulable', undefined, 'NoSchedule')) return false;
  for (const t of n.taints) if (t.effect !== 'PreferNoSchedule' && !tolerated(t.key, t.value, t.effect)) return false;
  for (const [k, v] of Object.entries(c.nodeSelector ?? {})) if (n.labels[k] !== v) return false;
  if (c.requiredNodeAffinity !== undefined) {
    const termOk = c.requiredNodeAffinity.some((term) => {
      const exprs = term.matchExpressions ?? [];
      if (exprs.length === 0) return false;
      return exprs.every((e) => {
        const has = e.key in n.labels;
        if (e.operator === 'Exists') return has;
        if (e.operator === 'In') return has && (e.values ?? []).includes(n.labels[e.key]!);
        if (e.operator === 'NotIn') return !has || !(e.values ?? []).includes(n.labels[e.key]!);
        return false;
      });
    });
    if (!termOk) return false;
  }
  return true;
}

/** Every replica this plan places (admissions, scale-outs, binds) with its job spec. */
export function placedByPlan(snap: ClusterSnapshot, plan: Plan): { spec: JobSpec; replica: ReplicaInstance }[] {
  const specOf = new Map(snap.jobs.map((j) => [j.spec.key, j.spec]));
  const out: { spec: JobSpec; replica: ReplicaInstance }[] = [];
  for (const a of plan.admit) for (const r of a.replicas) out.push({ spec: specOf.get(a.job)!, replica: r });
  for (const s of plan.scaleOut) for (const r of s.add) out.push({ spec: specOf.get(s.job)!, replica: r });
  for (const b of plan.bind) out.push({ spec: specOf.get(b.job)!, replica: b.replica });
  return out;
}

export interface SimArrival {
  readonly spec: JobSpec;
  /** How long the job runs once admitted, whatever its worker count. */
  readonly runtimeMs: number;
}

export interface SimResult {
  readonly admittedAt: ReadonlyMap<string, number>;
  readonly finishedAt: ReadonlyMap<string, number>;
  readonly plans: readonly Plan[];
  /** Waiting jobs (by key) at each pass with whether they were ahead of a given job: kept for bound checks. */
  readonly waitingAt: ReadonlyMap<number, readonly string[]>;
}

/**
 * A minimal event loop: a pass every `passIntervalMs` (arrivals and completions are aligned to
 * passes by the tests), jobs run `runtimeMs` after admission and then finish.
 */
export function simulate(
  policy: SimPolicyName,
  config: SchedulerConfig,
  nodes: readonly NodeInfo[],
  arrivals: readonly SimArrival[],
  passIntervalMs: number,
  horizonMs: number,
  onPass?: (after: ClusterSnapshot, plan: Plan) => void,
): SimResult {
  const admittedAt = new Map<string, number>();
  const finishedAt = new Map<string, number>();
  const runtime = new Map(arrivals.map((a) => [a.spec.key, a.runtimeMs]));
  const plans: Plan[] = [];
  const waitingAt = new Map<number, string[]>();
  let jobs: JobState[] = [];
  for (let now = 0; now <= horizonMs; now += passIntervalMs) {
    jobs = jobs.map((j) => {
      const at = admittedAt.get(j.spec.key);
      if (j.phase === 'running' && at !== undefined && now >= at + (runtime.get(j.spec.key) ?? 0)) {
        finishedAt.set(j.spec.key, now);
        return { spec: j.spec, phase: 'finished', replicas: [] };
      }
      return j;
    });
    for (const a of arrivals) {
      if (a.spec.submittedAt <= now && !jobs.some((j) => j.spec.key === a.spec.key))
        jobs.push({ spec: a.spec, phase: 'waiting', replicas: [] });
    }
    const snap: ClusterSnapshot = { now, nodes, otherPods: [], jobs };
    const plan = schedule(policy, snap, config);
    plans.push(plan);
    for (const a of plan.admit) admittedAt.set(a.job, now);
    const after = applyPlan(snap, plan);
    onPass?.(after, plan);
    jobs = [...after.jobs];
    waitingAt.set(
      now,
      jobs.filter((j) => j.phase === 'waiting').map((j) => j.spec.key),
    );
  }
  return { admittedAt, finishedAt, plans, waitingAt };
}
