// What a pass saw on each node it placed pods on: for tracing an over-commit back to the pass that
// made it (which pod it did not count). Pure; the loop logs it at info level, only for passes that place.
import type { ClusterSnapshot, Plan, RepairPlacement, ReplicaInstance, Resources } from '../../../scheduler/index.ts';

export interface NodeTrace {
  readonly node: string;
  readonly allocatable: Resources;
  /** What the pass counted as used there (its requests summed). */
  readonly used: Resources;
  /** What it counted: other pods by key, replicas as `job:type-index` (`(pending)` for placements not yet pods). */
  readonly counted: readonly string[];
  /** What this pass placed there, as `job:type-index`. */
  readonly placed: readonly string[];
  /** Their requests summed. */
  readonly adds: Resources;
  /** What this pass takes away there (scale-ins, preemptions, suspensions), as `job:type-index`. */
  readonly removed: readonly string[];
  /** Their requests summed: the core counts their room free from this pass on. */
  readonly frees: Resources;
}

/** One entry per node this pass placed a replica on (admissions, scale-outs, repairs); empty if none. */
export function placementTrace(snapshot: ClusterSnapshot, plan: Plan, repairs: readonly RepairPlacement[]): NodeTrace[] {
  const specs = new Map(snapshot.jobs.map((j) => [j.spec.key, j.spec]));
  const requestsOf = (job: string, type: string): Resources => {
    const spec = specs.get(job);
    return (type === spec?.workers?.type ? spec.workers.requests : spec?.fixed.find((g) => g.type === type)?.requests) ?? {};
  };
  const placed = new Map<string, { what: string[]; adds: Record<string, number> }>();
  const add = (node: string | undefined, what: string, requests: Resources) => {
    if (node === undefined) return;
    const entry = placed.get(node) ?? { what: [], adds: {} };
    entry.what.push(what);
    sum(entry.adds, requests);
    placed.set(node, entry);
  };
  const id = (job: string, r: Pick<ReplicaInstance, 'type' | 'index'>) => `${job}:${r.type}-${r.index}`;
  for (const a of plan.admit) for (const r of a.replicas) add(r.node, id(a.job, r), requestsOf(a.job, r.type));
  for (const s of plan.scaleOut) for (const r of s.add) add(r.node, id(s.job, r), requestsOf(s.job, r.type));
  for (const r of repairs) add(r.node, `${r.replica.job}:${r.replica.name ?? r.replica.group.type}`, r.replica.group.requests);
  if (placed.size === 0) return [];
  const removed = new Map<string, { what: string[]; frees: Record<string, number> }>();
  const take = (job: string, r: ReplicaInstance) => {
    if (r.node === undefined || !placed.has(r.node)) return;
    const entry = removed.get(r.node) ?? { what: [], frees: {} };
    entry.what.push(id(job, r));
    sum(entry.frees, requestsOf(job, r.type));
    removed.set(r.node, entry);
  };
  for (const e of plan.scaleIn) for (const r of e.remove) take(e.job, r);
  const suspended = new Set(plan.suspend.map((e) => e.job));
  for (const j of snapshot.jobs) if (suspended.has(j.spec.key)) for (const r of j.replicas) take(j.spec.key, r);
  const out: NodeTrace[] = [];
  for (const [node, { what, adds }] of placed) {
    const info = snapshot.nodes.find((n) => n.name === node);
    const used: Record<string, number> = {};
    const counted: string[] = [];
    const use = (requests: Resources) => {
      sum(used, requests);
    };
    for (const p of snapshot.otherPods) {
      if (p.node !== node) continue;
      use(p.requests);
      counted.push(p.key);
    }
    for (const j of snapshot.jobs) {
      for (const r of j.replicas) {
        if (r.node !== node) continue;
        const group = r.type === 'Worker' ? j.spec.workers : j.spec.fixed.find((g) => g.type === r.type);
        if (group !== undefined) use(group.requests);
        counted.push(`${id(j.spec.key, r)}${r.pending === true ? '(pending)' : ''}`);
      }
    }
    const gone = removed.get(node);
    out.push({
      node,
      allocatable: info?.allocatable ?? {},
      used,
      counted,
      placed: what,
      adds,
      removed: gone?.what ?? [],
      frees: gone?.frees ?? {},
    });
  }
  return out;
}

function sum(into: Record<string, number>, r: Resources): void {
  for (const [k, v] of Object.entries(r)) into[k] = (into[k] ?? 0) + v;
}
