// What a pass saw on each node it placed pods on: for tracing an over-commit back to the pass that
// made it (which pod it did not count). Pure; the loop logs it at info level, only for passes that place.
import type { ClusterSnapshot, Plan, RepairPlacement, ReplicaInstance, Resources } from '../../../scheduler/index.ts';
import { sumResources } from '../../../scheduler/model/resources.ts';

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

/** A replica on a node, as the trace names it, with its requests. */
interface Entry {
  readonly node: string;
  readonly what: string;
  readonly requests: Resources;
}

/** One entry per node this pass placed a replica on (admissions, scale-outs, repairs); empty if none. */
export function placementTrace(snapshot: ClusterSnapshot, plan: Plan, repairs: readonly RepairPlacement[]): NodeTrace[] {
  const specs = new Map(snapshot.jobs.map((j) => [j.spec.key, j.spec]));
  const replica = (job: string, r: ReplicaInstance, suffix = ''): Entry[] => {
    const spec = specs.get(job);
    const requests = (r.type === spec?.workers?.type ? spec.workers.requests : spec?.fixed.find((g) => g.type === r.type)?.requests) ?? {};
    return r.node === undefined ? [] : [{ node: r.node, what: `${job}:${r.type}-${r.index}${suffix}`, requests }];
  };
  const placed = byNode([
    ...plan.admit.flatMap((a) => a.replicas.flatMap((r) => replica(a.job, r))),
    ...plan.scaleOut.flatMap((e) => e.add.flatMap((r) => replica(e.job, r))),
    ...repairs.map((r) => ({
      node: r.node,
      what: `${r.replica.job}:${r.replica.name ?? r.replica.group.type}`,
      requests: r.replica.group.requests,
    })),
  ]);
  if (placed.size === 0) return [];
  // Only the nodes placed on: a pass must not walk every pod of a large cluster for its trace.
  const here = (e: Entry) => placed.has(e.node);
  const suspended = new Set(plan.suspend.map((e) => e.job));
  const removed = byNode(
    [
      ...plan.scaleIn.flatMap((e) => e.remove.flatMap((r) => replica(e.job, r))),
      ...snapshot.jobs.filter((j) => suspended.has(j.spec.key)).flatMap((j) => j.replicas.flatMap((r) => replica(j.spec.key, r))),
    ].filter(here),
  );
  const counted = byNode([
    ...snapshot.otherPods.filter((p) => placed.has(p.node)).map((p) => ({ node: p.node, what: p.key, requests: p.requests })),
    ...snapshot.jobs.flatMap((j) =>
      j.replicas
        .filter((r) => r.node !== undefined && placed.has(r.node))
        .flatMap((r) => replica(j.spec.key, r, r.pending === true ? '(pending)' : '')),
    ),
  ]);
  return [...placed].map(([node, adds]) => {
    const used = counted.get(node) ?? [];
    const gone = removed.get(node) ?? [];
    return {
      node,
      allocatable: snapshot.nodes.find((n) => n.name === node)?.allocatable ?? {},
      used: sumResources(used.map((e) => e.requests)),
      counted: used.map((e) => e.what),
      placed: adds.map((e) => e.what),
      adds: sumResources(adds.map((e) => e.requests)),
      removed: gone.map((e) => e.what),
      frees: sumResources(gone.map((e) => e.requests)),
    };
  });
}

function byNode(entries: readonly Entry[]): Map<string, Entry[]> {
  const out = new Map<string, Entry[]>();
  for (const e of entries) {
    const list = out.get(e.node);
    if (list === undefined) out.set(e.node, [e]);
    else list.push(e);
  }
  return out;
}
