// What a vertical (in-place CPU limit) rule sees of a running container and what it may change.
// Shared by FlowCon and the DQoES vertical rule; pure, no Kubernetes types. Requests never change
// (placement and quotas stay sound); a limit is set only within [request, the node's allocatable].

/** One running container whose CPU limit a vertical rule may set. Millicores throughout. */
export interface ContainerCpu {
  readonly pod: string;
  readonly container: string;
  readonly node: string;
  readonly requestMillis: number;
  /** The limit in force now (the pod's spec). */
  readonly limitMillis: number;
  /** The limit the job's replica template sets. */
  readonly templateLimitMillis: number;
  /** The limit this operator set last (from the job's status), if any. */
  readonly setByUsMillis?: number;
}

export interface NodeCpu {
  readonly name: string;
  readonly allocatableMillis: number;
}

/** One planned limit. */
export interface LimitChange {
  /** namespace/name of the TFJob. */
  readonly job: string;
  readonly pod: string;
  readonly container: string;
  readonly node: string;
  readonly fromMillis: number;
  readonly toMillis: number;
  /** Why, in words (for the Event and the status). */
  readonly reason: string;
}

/** Why a container is left alone, or undefined when a rule may set its limit. */
export function untouchable(c: ContainerCpu): string | undefined {
  // Without room above the request (Guaranteed QoS) a raise would change the pod's QoS class, which an
  // in-place resize may not do; a lower limit would be below the request.
  if (c.templateLimitMillis <= c.requestMillis) return 'no CPU limit above its request';
  // Someone else (a user, a VPA) set this limit: theirs to keep.
  if (c.limitMillis !== c.templateLimitMillis && c.limitMillis !== c.setByUsMillis) return 'its CPU limit was set by someone else';
  return undefined;
}

/** The limit a rule may write: within [request, node allocatable], whole millicores. */
export function clampLimit(c: ContainerCpu, wantMillis: number, node: NodeCpu): number {
  const ceiling = Math.max(c.requestMillis, node.allocatableMillis);
  return Math.round(Math.min(ceiling, Math.max(c.requestMillis, wantMillis)));
}

/**
 * Splits `totalMillis` for one job on one node among its containers there, in proportion to their
 * requests (a job's replicas are alike; a PS beside a worker gets its share by what it asked for).
 */
export function splitByRequest(containers: readonly ContainerCpu[], totalMillis: number): number[] {
  const sum = containers.reduce((a, c) => a + c.requestMillis, 0);
  return containers.map((c) => (sum > 0 ? (totalMillis * c.requestMillis) / sum : totalMillis / containers.length));
}

/** A change worth making: at least `minStepMillis` away from what is in force. */
export function changeIf(job: string, c: ContainerCpu, toMillis: number, minStepMillis: number, reason: string): LimitChange | undefined {
  if (Math.abs(toMillis - c.limitMillis) < Math.max(1, minStepMillis)) return undefined;
  return { job, pod: c.pod, container: c.container, node: c.node, fromMillis: c.limitMillis, toMillis, reason };
}

/** The job's containers grouped by node, in a stable order (node name, then pod and container). */
export function byNode(containers: readonly ContainerCpu[]): Map<string, ContainerCpu[]> {
  const out = new Map<string, ContainerCpu[]>();
  const sorted = [...containers].sort((a, b) => (a.node + a.pod + a.container < b.node + b.pod + b.container ? -1 : 1));
  for (const c of sorted) out.set(c.node, [...(out.get(c.node) ?? []), c]);
  return out;
}
