// Caches of the queue objects (ClusterQueue, LocalQueue; docs/queues.md). Optional: on a cluster
// without the queue CRDs the operator runs with the single global queue, and says so once. Namespaces
// are cached too (name and labels only): a ClusterQueue's namespaceSelector is matched against them.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Namespace } from '@kubernetes/client-node';
import { CLUSTER_QUEUES, LOCAL_QUEUES, QUEUE_GROUP, QUEUE_VERSION, type ClusterQueue, type LocalQueue } from '../../../api/queues/types.ts';
import { Informer, stripForCache, type ListPage } from '../../../runtime/informer.ts';
import { httpStatus } from '../../../runtime/http-status.ts';
import type { KubeClients } from '../../../runtime/kube-client.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { RuntimeMetrics } from '../../../runtime/metrics.ts';
import { objectKey } from '../../../runtime/store.ts';
import { NamespacedInformers } from '../../informers.ts';
import type { QueueLookups } from './directory.ts';

export interface QueueCaches {
  readonly clusterQueues: Informer<ClusterQueue>;
  /** Cluster-wide, or per managed namespace under `--namespace` (no cluster-wide grant needed then). */
  readonly localQueues: NamespacedInformers<LocalQueue>;
  /** Absent when the operator may not list and watch namespaces (queues/access.ts). */
  readonly namespaces?: Informer<V1Namespace>;
}

/** What a namespaceSelector reads of a namespace: its name and labels. */
function reduceNamespace(ns: V1Namespace): V1Namespace {
  return { metadata: { name: ns.metadata?.name ?? '', resourceVersion: ns.metadata?.resourceVersion, labels: ns.metadata?.labels ?? {} } };
}

export async function queueCrdsServed(clients: KubeClients): Promise<boolean> {
  try {
    await clients.request('GET', `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}`);
    return true;
  } catch (err) {
    if (httpStatus(err) === 404) return false;
    throw err;
  }
}

export function createQueueCaches(deps: {
  kc: KubeConfig;
  clients: KubeClients;
  logger: Logger;
  metrics?: RuntimeMetrics;
  namespaces: readonly string[];
  readNamespaces: boolean;
}): QueueCaches {
  const custom = deps.clients.api(CustomObjectsApi);
  const onWatchEvent = (informer: string) => (event: string) => deps.metrics?.informerEvents.inc({ informer, event });
  const informer = <T extends ClusterQueue | LocalQueue>(plural: string, namespace: string | undefined): Informer<T> => {
    const name = namespace === undefined ? plural : `${plural}/${namespace}`;
    return new Informer<T>(
      deps.kc,
      {
        list: ({ limit, continueToken }) =>
          (namespace === undefined
            ? custom.listClusterCustomObject({ group: QUEUE_GROUP, version: QUEUE_VERSION, plural, limit, _continue: continueToken })
            : custom.listNamespacedCustomObject({
                group: QUEUE_GROUP,
                version: QUEUE_VERSION,
                plural,
                namespace,
                limit,
                _continue: continueToken,
              })) as Promise<ListPage<T>>,
        watchPath:
          namespace === undefined
            ? `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}/${plural}`
            : `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}/namespaces/${namespace}/${plural}`,
      },
      { name, logger: deps.logger, transform: stripForCache, onWatchEvent: onWatchEvent(name) },
    );
  };
  return {
    clusterQueues: informer<ClusterQueue>(CLUSTER_QUEUES, undefined),
    localQueues: new NamespacedInformers<LocalQueue>(deps.namespaces, (ns) => informer<LocalQueue>(LOCAL_QUEUES, ns)),
    ...(deps.readNamespaces ? { namespaces: namespaceInformer(deps, onWatchEvent('namespaces')) } : {}),
  };
}

/** Every namespace, cluster-wide: few objects, and a selector may name any of them. */
function namespaceInformer(
  deps: { kc: KubeConfig; clients: KubeClients; logger: Logger },
  onWatchEvent: (event: 'list' | 'watch' | 'error' | 'gone') => void,
): Informer<V1Namespace> {
  const core = deps.clients.api(CoreV1Api);
  return new Informer<V1Namespace>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => core.listNamespace({ limit, _continue: continueToken }),
      watchPath: '/api/v1/namespaces',
    },
    { name: 'namespaces', logger: deps.logger, transform: reduceNamespace, onWatchEvent },
  );
}

export function queueLookups(c: QueueCaches): QueueLookups {
  return {
    clusterQueues: () => c.clusterQueues.store.list(),
    localQueue: (namespace, name) => c.localQueues.get(objectKey({ metadata: { namespace, name } })),
    ...(c.namespaces === undefined ? {} : { namespaceLabels: (ns: string) => c.namespaces?.store.get(ns)?.metadata?.labels }),
  };
}
