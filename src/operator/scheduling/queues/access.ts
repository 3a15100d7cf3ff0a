// What the operator may do with the queue objects, asked of the API server before their caches
// start. An informer whose list is forbidden retries for ever and the operator would never become
// ready; a least-privilege install (RoleBindings per namespace, docs/operations.md) may well grant
// TFJobs, pods and services but not the cluster-scoped ClusterQueues. So: ask first
// (SelfSubjectAccessReview needs no grant beyond authentication), and run with the single global
// queue, saying exactly which grant is missing, when the queues cannot be read.
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { CLUSTER_QUEUES, LOCAL_QUEUES, QUEUE_GROUP } from '../../../api/queues/types.ts';
import type { KubeClients } from '../../../runtime/kube-client.ts';

/** One question: may the operator `verb` the resource in `namespace` ('' = cluster-wide)? */
export interface AccessQuestion {
  readonly verb: string;
  /** API group; absent: the queues' group. */
  readonly group?: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace: string;
}

export type AccessReviewer = (q: AccessQuestion) => Promise<boolean>;

export interface QueueAccess {
  /** Grants missing to read the queues (empty: the queue caches may start). */
  readonly missingReads: readonly string[];
  /** Whether ClusterQueue statuses may be written (else they are left alone, said once). */
  readonly writeClusterQueueStatus: boolean;
  /** Whether namespaces may be listed and watched (their labels, for ClusterQueue namespaceSelectors). */
  readonly readNamespaces: boolean;
}

export function describeQuestion(q: AccessQuestion): string {
  const what = `${q.verb} ${q.group === undefined ? `${QUEUE_GROUP}/` : q.group === '' ? '' : `${q.group}/`}${q.resource}${q.subresource === undefined ? '' : `/${q.subresource}`}`;
  return q.namespace === '' ? `${what} (cluster-wide)` : `${what} in ${q.namespace}`;
}

/**
 * ClusterQueues and namespaces (their labels, for namespaceSelectors) are read cluster-wide; LocalQueues cluster-wide or, with `--namespace`, in each
 * managed namespace (the caches list them there only).
 */
export async function checkQueueAccess(review: AccessReviewer, namespaces: readonly string[]): Promise<QueueAccess> {
  const scopes = namespaces.length === 0 ? [''] : namespaces;
  const reads: AccessQuestion[] = [
    ...['list', 'watch'].map((verb) => ({ verb, resource: CLUSTER_QUEUES, namespace: '' })),
    ...scopes.flatMap((namespace) => ['list', 'watch'].map((verb) => ({ verb, resource: LOCAL_QUEUES, namespace }))),
  ];
  const namespaceReads = ['list', 'watch'].map((verb) => ({ verb, group: '', resource: 'namespaces', namespace: '' }));
  const [readAnswers, writeClusterQueueStatus, namespaceAnswers] = await Promise.all([
    Promise.all(reads.map(review)),
    review({ verb: 'update', resource: CLUSTER_QUEUES, subresource: 'status', namespace: '' }),
    Promise.all(namespaceReads.map(review)),
  ]);
  return {
    missingReads: reads.filter((_, i) => !readAnswers[i]).map(describeQuestion),
    writeClusterQueueStatus,
    readNamespaces: namespaceAnswers.every(Boolean),
  };
}

/** The reviewer the operator uses: one SelfSubjectAccessReview per question. */
export function selfSubjectReviewer(clients: KubeClients): AccessReviewer {
  const authz = clients.api(AuthorizationV1Api);
  return async (q) => {
    const res = await authz.createSelfSubjectAccessReview({
      body: {
        spec: {
          resourceAttributes: {
            verb: q.verb,
            group: q.group ?? QUEUE_GROUP,
            resource: q.resource,
            ...(q.subresource === undefined ? {} : { subresource: q.subresource }),
            ...(q.namespace === '' ? {} : { namespace: q.namespace }),
          },
        },
      },
    });
    return res.status?.allowed === true;
  };
}
