// What SpeCon sees, from the operator's caches and the scheduling pass's last view: each node's
// requests (in-flight creates included) and the CPU its containers may use, and each running job's
// FlowCon verdict, its nodes and the workers that survive a move.
import { LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import { needsAllWorkers, resolveElastic } from '../../api/v1/elastic.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import { REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import { subtractResources, type PlacementConstraints, type Resources } from '../../scheduler/index.ts';
import type { FlowConVerdict } from '../../scheduler/vertical/flowcon/index.ts';
import type { SpeconJob, SpeconNode, SpeconReplica } from '../../scheduler/vertical/specon/index.ts';
import type { ClusterView } from '../scheduling/pass/decide.ts';
import { placementConstraints, podRequests } from '../scheduling/convert.ts';
import { containersOf, optedOut } from '../vertical/inputs.ts';

export interface MigrationInputSource {
  readonly jobs: readonly ParsedTFJobEntry[];
  readonly podsOf: (key: string) => readonly Pod[];
  readonly keyOf: (e: ParsedTFJobEntry) => string;
  readonly verdictOf: (key: string) => FlowConVerdict;
}

/** Why the job may not be moved at all, or undefined when its workers (not a chief) may be. */
export function notMovableWhy(e: ParsedTFJobEntry): string | undefined {
  if (optedOut(e)) return 'opted out (cpu-resize annotation)';
  if (!resolveElastic(e.job).elastic) return 'not elastic: a re-created worker would stall its peers (docs/elastic-contract.md)';
  if (needsAllWorkers(e.job)) return 'its training style waits for every worker';
  return undefined;
}

/** Worker 0 is the chief unless the job has a Chief or Master: it stays. */
function hasChief(e: ParsedTFJobEntry): boolean {
  return Object.keys(e.defaulted.spec.tfReplicaSpecs).some((t) => ['chief', 'master'].includes(t.toLowerCase()));
}

/**
 * Where the job's Worker template lets a worker run. The replacement is built from the template, and
 * the cached pod keeps no tolerations, node selector or affinity (pod-reduction.ts).
 */
function workerConstraints(e: ParsedTFJobEntry): PlacementConstraints {
  return placementConstraints(e.defaulted.spec.tfReplicaSpecs[REPLICA_TYPE_WORKER]?.template.spec);
}

export function movableWorkers(e: ParsedTFJobEntry, pods: readonly Pod[]): SpeconReplica[] {
  const running = new Map(containersOf(e, pods).map((c) => [c.pod, c]));
  const chief = hasChief(e);
  const constraints = workerConstraints(e);
  return pods.flatMap((p) => {
    const c = running.get(p.metadata?.name ?? '');
    const index = Number(p.metadata?.labels?.[LABEL_REPLICA_INDEX] ?? -1);
    if (c === undefined || p.metadata?.labels?.[LABEL_REPLICA_TYPE] !== 'worker' || index < 0 || (index === 0 && !chief)) return [];
    const pod = p;
    return [
      {
        pod: c.pod,
        index,
        node: c.node,
        requests: podRequests(pod),
        constraints,
        cpuLimitMillis: c.limitMillis,
      },
    ];
  });
}

export function speconJobs(src: MigrationInputSource): SpeconJob[] {
  return src.jobs.map((e) => {
    const key = src.keyOf(e);
    const pods = src.podsOf(key);
    const why = notMovableWhy(e);
    return {
      key,
      flowcon: src.verdictOf(key),
      nodes: [...new Set(containersOf(e, pods).map((c) => c.node))],
      movable: why === undefined ? movableWorkers(e, pods) : [],
      ...(why === undefined ? {} : { notMovable: why }),
    };
  });
}

/**
 * The nodes as kube-scheduler counts them (allocatable less what the last pass left idle) and the CPU
 * their containers may use: every request, plus what our containers' limits allow above theirs.
 */
export function speconNodes(view: ClusterView, src: MigrationInputSource): SpeconNode[] {
  const headroom = new Map<string, number>();
  for (const e of src.jobs) {
    for (const c of containersOf(e, src.podsOf(src.keyOf(e)))) {
      headroom.set(c.node, (headroom.get(c.node) ?? 0) + Math.max(0, c.limitMillis - c.requestMillis));
    }
  }
  return view.nodes.flatMap((info) => {
    const idle = view.idle.get(info.name);
    if (idle === undefined) return [];
    const requested: Resources = subtractResources(info.allocatable, idle);
    return [{ info, requested, usedCpuMillis: (requested['cpu'] ?? 0) + (headroom.get(info.name) ?? 0) }];
  });
}
