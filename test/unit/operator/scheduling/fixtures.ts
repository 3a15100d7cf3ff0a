// Small fakes of what the scheduling stages read and call: TFJobs, pods and nodes as the informer
// caches hold them, the snapshot sources, and a pod remover that records its calls (events go to
// runtime/events.ts's MemoryEventRecorder).
import { queueDirectory, type QueueLookups } from '../../../../src/operator/scheduling/queues/directory.ts';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_MAX_WORKERS,
  ANNOTATION_MIN_WORKERS,
  ANNOTATION_REMOVAL,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
} from '../../../../src/api/v1/constants.ts';
import { toTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { TFJobObject } from '../../../../src/operator/informers.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { restoreDecision, type Decision, type DecisionView } from '../../../../src/operator/scheduling/decisions/decision.ts';
import type { PodRemover, Removal } from '../../../../src/operator/scheduling/pod-remover.ts';
import type { NodeLoss, SnapshotOptions, SnapshotSources } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import type { JobProgress, StepRate } from '../../../../src/scheduler/types.ts';

export const NS = 'team';
export const T0 = Date.parse('2026-11-24T10:00:00Z');

export const OPTIONS: SnapshotOptions = {
  defaults: { cpu: 100, memory: 256 * 2 ** 20 },
  managedNode: () => true,
  replaceRefusedAfterMs: 60_000,
};

function template(cpu: string) {
  return { spec: { containers: [{ name: 'tensorflow', image: 'tf', resources: { requests: { cpu, memory: '1Gi' } } }] } };
}

type JobOptions = { workers?: number; elastic?: { min: number; max: number }; status?: unknown; suspend?: boolean; rv?: string };

/** A TFJob as the operator's cache holds it (parsed once): see tfjobObject. */
export function tfjob(name: string, opts: JobOptions = {}): TFJobEntry {
  return toTFJobEntry(tfjobObject(name, opts));
}

/** A TFJob with one PS and `workers` workers of 1 cpu each; elastic when bounds are given. */
export function tfjobObject(name: string, opts: JobOptions = {}): TFJobObject {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      resourceVersion: opts.rv ?? '1',
      generation: 1,
      creationTimestamp: new Date(T0),
      ...(opts.elastic
        ? { annotations: { [ANNOTATION_MIN_WORKERS]: String(opts.elastic.min), [ANNOTATION_MAX_WORKERS]: String(opts.elastic.max) } }
        : {}),
    },
    spec: {
      ...(opts.suspend === undefined ? {} : { runPolicy: { suspend: opts.suspend } }),
      tfReplicaSpecs: {
        PS: { replicas: 1, template: template('1') },
        Worker: { replicas: opts.workers ?? 2, template: template('1') },
      },
    },
    ...(opts.status === undefined ? {} : { status: opts.status }),
  };
}

/** A pod of a job's replica, as the operator's cache holds it. */
export function replicaPod(
  job: string,
  type: 'ps' | 'worker',
  index: number,
  node: string | undefined,
  opts: { phase?: string; deleting?: boolean; removal?: string } = {},
): V1Pod {
  return {
    metadata: {
      name: `${job}-${type}-${index}`,
      namespace: NS,
      uid: `uid-${job}-${type}-${index}`,
      labels: { [LABEL_REPLICA_TYPE]: type, [LABEL_REPLICA_INDEX]: String(index) },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: job, uid: `uid-${job}`, controller: true }],
      creationTimestamp: new Date(T0),
      ...(opts.deleting ? { deletionTimestamp: new Date(T0) } : {}),
      ...(opts.removal === undefined ? {} : { annotations: { [ANNOTATION_REMOVAL]: opts.removal } }),
    },
    spec: {
      ...(node === undefined ? {} : { nodeName: node }),
      containers: [{ name: 'tensorflow', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
    },
    status: { phase: opts.phase ?? 'Running' },
  };
}

/** A pod of some other workload using capacity on a node. */
export function foreignPod(name: string, node: string, cpu: string): V1Pod {
  return {
    metadata: { name, namespace: 'other', uid: `uid-${name}` },
    spec: { nodeName: node, containers: [{ name: 'app', resources: { requests: { cpu, memory: '1Gi' } } }] },
    status: { phase: 'Running' },
  };
}

export function node(name: string, cpu = '4', opts: { ready?: boolean; labels?: Record<string, string> } = {}): V1Node {
  return {
    metadata: { name, labels: opts.labels ?? {} },
    status: {
      allocatable: { cpu, memory: '32Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
    },
  };
}

/** Snapshot sources over plain arrays: the stores of a cluster described by its objects. */
export function sources(opts: {
  tfjobs: readonly TFJobEntry[];
  pods?: readonly V1Pod[];
  otherPods?: readonly V1Pod[];
  nodes: readonly V1Node[];
  priorityClasses?: Readonly<Record<string, number>>;
  lost?: Readonly<Record<string, NodeLoss>>;
  progress?: Readonly<Record<string, JobProgress>>;
  stepRates?: Readonly<Record<string, StepRate>>;
  /** Jobs whose pod creates are in flight. */
  creating?: readonly string[];
  /** ClusterQueues and LocalQueues (absent: the queue CRDs are not installed). */
  queues?: QueueLookups;
}): SnapshotSources {
  const owned = opts.pods ?? [];
  return {
    tfjobs: opts.tfjobs,
    podsOf: (key) => owned.filter((p) => `${NS}/${p.metadata?.ownerReferences?.[0]?.name ?? ''}` === key),
    allPods: [...owned, ...(opts.otherPods ?? [])],
    nodes: opts.nodes,
    priorityClassValue: (name) => opts.priorityClasses?.[name],
    nodeLost: (n) => (n === undefined ? undefined : opts.lost?.[n]),
    progressOf: (key) => opts.progress?.[key],
    stepRateOf: (key) => opts.stepRates?.[key],
    podCreatesInFlight: (key) => opts.creating?.includes(key) ?? false,
    queues: queueDirectory(opts.queues),
  };
}

export class RecordingRemover implements PodRemover {
  readonly calls: { pod: string; removal: string; force: boolean }[] = [];
  failOn: string | undefined;
  /** Pods the API no longer has under the UID the remover was given (deleted or replaced). */
  readonly gone = new Set<string>();

  remove(pod: V1Pod, removal: string, options: { readonly force?: boolean } = {}): Promise<Removal> {
    const name = pod.metadata?.name ?? '';
    if (name === this.failOn) return Promise.reject(new Error(`injected failure removing ${name}`));
    if (this.gone.has(name)) return Promise.resolve('gone');
    this.calls.push({ pod: name, removal, force: options.force === true });
    return Promise.resolve('removed');
  }
}

/**
 * `key`'s decision as a test sets it up: rebuilt from a bare TFJob created at `created`, `shape`d, and
 * then handed to the book the way a pass adopts a rebuilt decision (upkeep).
 */
export function adopt(book: DecisionBook, key: string, shape: (d: Decision) => void = () => undefined, created?: string): DecisionView {
  const name = key.slice(key.indexOf('/') + 1);
  const d = restoreDecision({ metadata: { name, ...(created === undefined ? {} : { creationTimestamp: created }) } }, [], T0);
  shape(d);
  book.upkeep({ restored: new Map([[key, d]]), suspended: [], settled: new Map(), attained: new Map(), at: T0 });
  return book.get(key)!;
}

/** A new book holding `key`'s decision (see adopt). */
export function bookWith(key: string, shape?: (d: Decision) => void): { book: DecisionBook; d: DecisionView } {
  const book = new DecisionBook();
  return { book, d: adopt(book, key, shape) };
}
