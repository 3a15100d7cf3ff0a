// ClusterQueues and LocalQueues for integration tests, created and deleted as an admin.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { CLUSTER_QUEUES, LOCAL_QUEUES, QUEUE_GROUP, QUEUE_VERSION, type ClusterQueue } from '../../src/api/queues/types.ts';
import { adminKubeConfig } from './kube.ts';

const API_VERSION = `${QUEUE_GROUP}/${QUEUE_VERSION}`;
const custom = () => adminKubeConfig().makeApiClient(CustomObjectsApi);

export async function createClusterQueue(name: string, spec: ClusterQueue['spec']): Promise<void> {
  await custom().createClusterCustomObject({
    group: QUEUE_GROUP,
    version: QUEUE_VERSION,
    plural: CLUSTER_QUEUES,
    body: { apiVersion: API_VERSION, kind: 'ClusterQueue', metadata: { name }, spec },
  });
}

export async function deleteClusterQueue(name: string): Promise<void> {
  await custom().deleteClusterCustomObject({ group: QUEUE_GROUP, version: QUEUE_VERSION, plural: CLUSTER_QUEUES, name });
}

export async function createLocalQueue(namespace: string, name: string, clusterQueue: string): Promise<void> {
  await custom().createNamespacedCustomObject({
    group: QUEUE_GROUP,
    version: QUEUE_VERSION,
    plural: LOCAL_QUEUES,
    namespace,
    body: { apiVersion: API_VERSION, kind: 'LocalQueue', metadata: { name }, spec: { clusterQueue } },
  });
}
