// What the dashboard keeps of pods, nodes, events and TFJobs: small views built as objects enter the
// caches (so a cluster-wide pod watch costs a few hundred bytes a pod, not the whole spec).
import type { KubernetesObject } from '@kubernetes/client-node';
import { ENV_TF_CONFIG, LABEL_JOB_NAME, LABEL_OPERATOR_NAME, LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE } from '../api/v1/constants.ts';
import { parseQuantity } from '../api/v1/quantity.ts';
import { arr, num, obj, str } from './read.ts';
import type { EventView, JobRow, PodView, Resources } from './types.ts';

export interface CachedPod extends KubernetesObject {
  readonly view: PodView;
  readonly tfConfig: string | undefined;
}

export interface CachedNode extends KubernetesObject {
  readonly name: string;
  readonly ready: boolean;
  readonly unschedulable: boolean;
  readonly allocatable: Resources;
}

export interface CachedEvent extends KubernetesObject {
  /** `namespace/name` of the TFJob the event is about. */
  readonly job: string;
  readonly view: EventView;
}

const ZERO: Resources = { cpu: 0, memory: 0, gpu: 0 };

export function addResources(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory, gpu: a.gpu + b.gpu };
}

function resourcesOf(list: unknown): Resources {
  const r = obj(list);
  const q = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? (parseQuantity(v) ?? 0) : 0);
  return { cpu: q(r['cpu']), memory: q(r['memory']), gpu: q(r['nvidia.com/gpu']) };
}

function metaOf(raw: unknown): { name: string; namespace: string | undefined; labels: Readonly<Record<string, unknown>> } {
  const m = obj(raw, 'metadata');
  return { name: str(m['name']) ?? '', namespace: str(m['namespace']), labels: obj(m['labels']) };
}

/** A pod's requests and limits as the scheduler counts them (sum of its containers; a limit alone is a request). */
function podResources(spec: Readonly<Record<string, unknown>>): { requests: Resources; limits: Resources } {
  let requests = ZERO;
  let limits = ZERO;
  for (const c of arr(spec['containers'])) {
    const res = obj(c, 'resources');
    const lim = resourcesOf(res['limits']);
    const req = resourcesOf(res['requests']);
    requests = addResources(requests, {
      cpu: req.cpu || lim.cpu,
      memory: req.memory || lim.memory,
      gpu: req.gpu || lim.gpu,
    });
    limits = addResources(limits, lim);
  }
  return { requests, limits };
}

function tfConfigOf(spec: Readonly<Record<string, unknown>>): string | undefined {
  for (const c of arr(spec['containers'])) {
    for (const e of arr(obj(c)['env'])) {
      const env = obj(e);
      if (env['name'] === ENV_TF_CONFIG) return str(env['value']);
    }
  }
  return undefined;
}

export function reducePod(raw: KubernetesObject): CachedPod {
  const { name, namespace, labels } = metaOf(raw);
  const spec = obj(raw, 'spec');
  const ownedByOperator = labels[LABEL_OPERATOR_NAME] !== undefined;
  const jobName = ownedByOperator ? str(labels[LABEL_JOB_NAME]) : undefined;
  const replicaType = str(labels[LABEL_REPLICA_TYPE]);
  const index = str(labels[LABEL_REPLICA_INDEX]);
  const view: PodView = {
    namespace: namespace ?? '',
    name,
    node: str(spec['nodeName']),
    phase: str(obj(raw, 'status')['phase']) ?? 'Unknown',
    job: jobName === undefined ? undefined : `${namespace ?? ''}/${jobName}`,
    replicaType: replicaType === undefined ? undefined : `${replicaType.toLowerCase()}-${index ?? '?'}`,
    ...podResources(spec),
    deleting: obj(raw, 'metadata')['deletionTimestamp'] !== undefined,
  };
  return {
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    view,
    tfConfig: ownedByOperator ? tfConfigOf(spec) : undefined,
  };
}

export function reduceNode(raw: KubernetesObject): CachedNode {
  const { name } = metaOf(raw);
  const ready = arr(obj(raw, 'status')['conditions']).some((c) => obj(c)['type'] === 'Ready' && obj(c)['status'] === 'True');
  return {
    metadata: { name },
    name,
    ready,
    unschedulable: obj(raw, 'spec')['unschedulable'] === true,
    allocatable: resourcesOf(obj(raw, 'status')['allocatable']),
  };
}

export function reduceEvent(raw: KubernetesObject): CachedEvent {
  const { name, namespace } = metaOf(raw);
  const e = obj(raw);
  const involved = obj(raw, 'involvedObject');
  const time =
    str(e['lastTimestamp']) ?? str(e['eventTime']) ?? str(e['firstTimestamp']) ?? str(obj(raw, 'metadata')['creationTimestamp']) ?? '';
  return {
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    job: `${str(involved['namespace']) ?? namespace ?? ''}/${str(involved['name']) ?? ''}`,
    view: {
      time,
      type: str(e['type']) ?? 'Normal',
      reason: str(e['reason']) ?? '',
      message: str(e['message']) ?? '',
      count: num(e['count']) ?? 1,
    },
  };
}

/** The job's state as `kubectl get tfjobs` shows it: the last condition whose status is True. */
function stateOf(status: Readonly<Record<string, unknown>>): string {
  const conditions = arr(status['conditions']).map((c) => obj(c));
  const last = conditions.filter((c) => c['status'] === 'True').at(-1);
  return str(last?.['type']) ?? (conditions.length === 0 ? 'Unknown' : 'Pending');
}

/** The row of the jobs view; `position` comes from the ClusterQueue's waiting line. */
export function jobRow(raw: KubernetesObject, position: number | undefined): JobRow {
  const { name, namespace } = metaOf(raw);
  const status = obj(raw, 'status');
  const sch = obj(status, 'scheduling');
  const workers = obj(sch, 'workers');
  const elastic = obj(raw, 'spec', 'elasticPolicy');
  const progress = obj(status, 'progress');
  const qoe = obj(status, 'qoe');
  return {
    namespace: namespace ?? '',
    name,
    state: stateOf(status),
    queue: str(sch['queue']),
    clusterQueue: str(sch['clusterQueue']),
    position,
    weight: str(sch['weight']),
    workers: {
      current: num(workers['current']),
      min: num(workers['min']) ?? num(elastic['minReplicas']),
      max: num(workers['max']) ?? num(elastic['maxReplicas']),
    },
    reason: str(sch['reason']),
    message: str(sch['message']),
    phase: str(progress['phase']),
    metricName: str(progress['metricName']),
    metric: str(progress['latest']) ?? str(progress['metric']),
    step: num(progress['step']),
    fractionDone: num(progress['fractionDone']),
    eta: str(progress['eta']),
    qoeClass: str(qoe['class']),
    qoeTarget: str(qoe['target']),
    requiredRate: str(qoe['requiredStepsPerSecond']),
    measuredRate: str(qoe['measuredStepsPerSecond']),
    created: str(obj(raw, 'metadata')['creationTimestamp']),
  };
}
