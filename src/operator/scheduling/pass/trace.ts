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
}

/** One entry per node this pass placed a replica on (admissions, scale-outs, repairs); empty if none. */
export function placementTrace(snapshot: ClusterSnapshot, plan: Plan, repairs: readonly RepairPlacement[]): NodeTrace[] {
  const placed = new Map<string, string[]>();
  const add = (node: string | undefined, what: string) => {
    if (node === undefined) return;
    const list = placed.get(node) ?? [];
    list.push(what);
    placed.set(node, list);
  };
  const id = (job: string, r: Pick<ReplicaInstance, 'type' | 'index'>) => `${job}:${r.type}-${r.index}`;
  for (const a of plan.admit) for (const r of a.replicas) add(r.node, id(a.job, r));
  for (const s of plan.scaleOut) for (const r of s.add) add(r.node, id(s.job, r));
  for (const r of repairs) add(r.node, `${r.replica.job}:${r.replica.name ?? r.replica.group.type}`);
  if (placed.size === 0) return [];
  const out: NodeTrace[] = [];
  for (const [node, what] of placed) {
    const info = snapshot.nodes.find((n) => n.name === node);
    const used: Record<string, number> = {};
    const counted: string[] = [];
    const use = (requests: Resources) => {
      for (const [k, v] of Object.entries(requests)) used[k] = (used[k] ?? 0) + v;
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
    out.push({ node, allocatable: info?.allocatable ?? {}, used, counted, placed: what });
  }
  return out;
}
