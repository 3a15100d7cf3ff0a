// What the scheduler needs beyond the TFJob controller's caches: the nodes it may place pods on,
// every non-terminated pod in the cluster (other workloads use capacity too), and PriorityClasses
// (a job's priority comes only from classes the admin created). Pods are cached in a reduced form:
// the scheduler reads only their node, requests and owner, and 50,000 full pods would dominate memory.
import { CoreV1Api, SchedulingV1Api, type KubeConfig, type V1Node, type V1Pod, type V1PriorityClass } from '@kubernetes/client-node';
import { Informer, stripForCache, type InformerHandler } from '../../runtime/informer.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { RuntimeMetrics } from '../../runtime/metrics.ts';
import {
  ANNOTATION_PLACED_NODE,
  ANNOTATION_REMOVAL,
  LABEL_OPERATOR_NAME,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
  LABEL_JOB_NAME,
} from '../../api/v1/constants.ts';
import { reduceContainer } from '../informers.ts';
import { podNode } from './pod-facts.ts';

/** Pods that still use capacity: bound or not, but not Succeeded/Failed (those free their node). */
const ACTIVE_PODS = 'status.phase!=Succeeded,status.phase!=Failed';

const KEPT_LABELS = [LABEL_OPERATOR_NAME, LABEL_JOB_NAME, LABEL_REPLICA_TYPE, LABEL_REPLICA_INDEX];
const KEPT_ANNOTATIONS = [ANNOTATION_REMOVAL, ANNOTATION_PLACED_NODE];

/** The few fields of a pod the scheduler reads. */
export function reducePod(pod: V1Pod): V1Pod {
  const m = pod.metadata ?? {};
  const labels: Record<string, string> = {};
  for (const k of KEPT_LABELS) {
    const v = m.labels?.[k];
    if (v !== undefined) labels[k] = v;
  }
  const annotations: Record<string, string> = {};
  for (const k of KEPT_ANNOTATIONS) {
    const v = m.annotations?.[k];
    if (v !== undefined) annotations[k] = v;
  }
  const controller = m.ownerReferences?.filter((r) => r.controller === true);
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ...(m.creationTimestamp === undefined ? {} : { creationTimestamp: m.creationTimestamp }),
      ...(m.deletionTimestamp === undefined ? {} : { deletionTimestamp: m.deletionTimestamp }),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(controller && controller.length > 0 ? { ownerReferences: controller } : {}),
    },
    spec: {
      ...(pod.spec?.nodeName === undefined ? {} : { nodeName: pod.spec.nodeName }),
      containers: (pod.spec?.containers ?? []).map(reduceContainer),
      ...(pod.spec?.initContainers ? { initContainers: pod.spec.initContainers.map(reduceContainer) } : {}),
      ...(pod.spec?.overhead ? { overhead: pod.spec.overhead } : {}),
    },
    status: { phase: pod.status?.phase },
  };
}

export interface SchedulerCaches {
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly priorityClasses: Informer<V1PriorityClass>;
}

export const BY_NODE = 'node';

export function createSchedulerCaches(deps: {
  kc: KubeConfig;
  clients: KubeClients;
  logger: Logger;
  metrics?: RuntimeMetrics;
}): SchedulerCaches {
  const core = deps.clients.api(CoreV1Api);
  const sched = deps.clients.api(SchedulingV1Api);
  const onWatchEvent = (informer: string) => (event: string) => deps.metrics?.informerEvents.inc({ informer, event });
  // Every node is watched, not only those the node selector picks: the scheduler must tell a node that
  // was deleted (its pods are lost) from one it merely does not place on.
  const nodes = new Informer<V1Node>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => core.listNode({ limit, _continue: continueToken }),
      watchPath: '/api/v1/nodes',
    },
    { name: 'nodes', logger: deps.logger, transform: stripForCache, onWatchEvent: onWatchEvent('nodes') },
  );
  const pods = new Informer<V1Pod>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => core.listPodForAllNamespaces({ limit, _continue: continueToken, fieldSelector: ACTIVE_PODS }),
      watchPath: '/api/v1/pods',
      fieldSelector: ACTIVE_PODS,
    },
    {
      name: 'all-pods',
      logger: deps.logger,
      transform: reducePod,
      indexers: {
        [BY_NODE]: (p) => {
          const node = podNode(p);
          return node === undefined ? [] : [node];
        },
      },
      onWatchEvent: onWatchEvent('all-pods'),
    },
  );
  const priorityClasses = new Informer<V1PriorityClass>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => sched.listPriorityClass({ limit, _continue: continueToken }),
      watchPath: '/apis/scheduling.k8s.io/v1/priorityclasses',
    },
    { name: 'priorityclasses', logger: deps.logger, transform: stripForCache, onWatchEvent: onWatchEvent('priorityclasses') },
  );
  return { nodes, pods, priorityClasses };
}

export function startSchedulerCaches(c: SchedulerCaches): void {
  c.nodes.start();
  c.pods.start();
  c.priorityClasses.start();
}

export async function waitForSchedulerCaches(c: SchedulerCaches): Promise<void> {
  await Promise.all([c.nodes.waitForSync(), c.pods.waitForSync(), c.priorityClasses.waitForSync()]);
}

export function stopSchedulerCaches(c: SchedulerCaches): void {
  c.nodes.stop();
  c.pods.stop();
  c.priorityClasses.stop();
}

export type { InformerHandler };

/** Parses `k=v,k2=v2` (the --node-selector flag) into a label matcher; empty matches every node. */
export function labelMatcher(selector: string): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const pairs = selector
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq), p.slice(eq + 1)] as const;
    });
  return (labels) => pairs.every(([k, v]) => labels?.[k] === v);
}
