// Queues with quotas for TFJobs (docs/queues.md): ClusterQueue and LocalQueue in the group
// tfjob-operator.kubeflow.org, with Kueue's vocabulary and semantics where they fit (a single
// resource flavor, so quotas are plain resource maps instead of Kueue's resourceGroups).

import type { KubernetesObject } from '@kubernetes/client-node';
import type { LabelSelector } from './namespace-selector.ts';

export const QUEUE_GROUP = 'tfjob-operator.kubeflow.org';
export const QUEUE_VERSION = 'v1alpha1';
export const CLUSTER_QUEUES = 'clusterqueues';
export const LOCAL_QUEUES = 'localqueues';
/** On a TFJob: the LocalQueue of its namespace it is submitted to (Kueue's `kueue.x-k8s.io/queue-name`). */
export const LABEL_QUEUE_NAME = 'tfjob-operator.kubeflow.org/queue-name';
/** The LocalQueue a TFJob without the label goes to, when its namespace has one of this name. */
export const DEFAULT_LOCAL_QUEUE = 'default';

/** Resource name → quantity, as in a pod's requests. */
export type ResourceQuantities = Readonly<Record<string, string | number>>;

export interface ClusterQueueSpec {
  readonly cohort?: string;
  readonly nominalQuota?: ResourceQuantities;
  readonly borrowingLimit?: ResourceQuantities;
  readonly lendingLimit?: ResourceQuantities;
  readonly fairSharing?: { readonly weight?: string | number };
  /** Namespaces whose TFJobs may use this queue (absent or `{}`: every namespace; namespace-selector.ts). */
  readonly namespaceSelector?: LabelSelector;
}

/** A waiting job near the head of a queue, in the order the scheduler considers them. */
export interface QueueHead {
  readonly namespace: string;
  readonly name: string;
  readonly position: number;
  readonly reason?: string;
}

export interface QueueCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface ClusterQueueStatus {
  readonly pendingJobs?: number;
  readonly admittedJobs?: number;
  readonly usage?: Readonly<Record<string, string>>;
  readonly borrowed?: Readonly<Record<string, string>>;
  readonly heads?: readonly QueueHead[];
  readonly conditions?: readonly QueueCondition[];
}

export interface ClusterQueue extends KubernetesObject {
  readonly spec?: ClusterQueueSpec;
  readonly status?: ClusterQueueStatus;
}

export interface LocalQueueStatus {
  readonly pendingJobs?: number;
  readonly admittedJobs?: number;
  readonly heads?: readonly QueueHead[];
  readonly conditions?: readonly QueueCondition[];
}

export interface LocalQueue extends KubernetesObject {
  readonly spec?: { readonly clusterQueue?: string };
  readonly status?: LocalQueueStatus;
}
