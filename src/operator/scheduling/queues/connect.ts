// The queues of a live cluster, when their CRDs are served and readable: the ClusterQueue, LocalQueue
// (and Namespace) caches, a status writer, and a pass requested on every change that can change
// scheduling. Without them the operator runs one global queue without quotas.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClients } from '../../../runtime/kube-client.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { RuntimeMetrics } from '../../../runtime/metrics.ts';
import type { OperatorConfig } from '../../config.ts';
import { checkQueueAccess, selfSubjectReviewer } from './access.ts';
import { createQueueCaches, queueCrdsServed, type QueueCaches } from './caches.ts';
import { QueueStatusWriter, type QueueMetrics } from './status.ts';

export interface ConnectedQueues {
  readonly caches: QueueCaches;
  readonly writer: QueueStatusWriter;
}

export interface QueueConnectDeps {
  readonly clients: KubeClients;
  readonly kubeConfig: KubeConfig;
  readonly namespaces: OperatorConfig['namespace'];
  /** The operator's logger (the caches log under it) and the scheduler's. */
  readonly logger: Logger;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  readonly queueMetrics: QueueMetrics;
  /** Requests a scheduling pass. */
  readonly trigger: (why: string) => void;
}

/** Starts the queue caches and their status writer; undefined when queues are not installed or not readable. */
export async function connectQueues(deps: QueueConnectDeps): Promise<ConnectedQueues | undefined> {
  const access = (await queueCrdsServed(deps.clients))
    ? await checkQueueAccess(selfSubjectReviewer(deps.clients), deps.namespaces)
    : undefined;
  if (access !== undefined && access.missingReads.length > 0) {
    deps.log.warn(
      { missing: access.missingReads },
      `Queue CRDs installed but not readable by this operator (missing: ${access.missingReads.join(', ')}): ` +
        'one global queue, no quotas. Grant get/list/watch on clusterqueues cluster-wide and on localqueues ' +
        'in the managed namespaces to use queues (docs/operations.md)',
    );
    return undefined;
  }
  if (access !== undefined) {
    if (!access.writeClusterQueueStatus) {
      deps.log.warn('May not update clusterqueues/status: ClusterQueue statuses are left to another writer (docs/operations.md)');
    }
    const caches = createQueueCaches({
      kc: deps.kubeConfig,
      clients: deps.clients,
      logger: deps.logger,
      metrics: deps.metrics,
      namespaces: deps.namespaces,
      readNamespaces: access.readNamespaces,
    });
    if (!access.readNamespaces) {
      deps.log.warn(
        'May not list/watch namespaces: ClusterQueues with a spec.namespaceSelector admit no TFJobs (their jobs wait saying so; docs/queues.md)',
      );
    }
    const writer = new QueueStatusWriter({
      clients: deps.clients,
      caches,
      metrics: deps.queueMetrics,
      logger: deps.log,
      namespaces: deps.namespaces,
      writeClusterQueueStatus: access.writeClusterQueueStatus,
    });
    const queues = { caches, writer };
    // Only a spec change (or a queue coming or going) changes scheduling; status writes do not.
    for (const informer of [caches.clusterQueues, caches.localQueues] as const) {
      informer.on((type, obj, old) => {
        if (type !== 'update' || obj.metadata?.generation !== old?.metadata?.generation) deps.trigger(`queue ${type}`);
      });
    }
    // A namespace's labels decide which ClusterQueues take its jobs.
    caches.namespaces?.on((type, obj, old) => {
      if (type !== 'update' || JSON.stringify(obj.metadata?.labels) !== JSON.stringify(old?.metadata?.labels))
        deps.trigger(`namespace ${type}`);
    });
    caches.clusterQueues.start();
    caches.localQueues.start();
    caches.namespaces?.start();
    return queues;
  }
  deps.log.info('Queue CRDs (ClusterQueue, LocalQueue) not installed: one global queue, no quotas');
  return undefined;
}
