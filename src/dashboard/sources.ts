// The dashboard's watches: one informer per kind and scope (cluster-wide when the user may list and
// watch everywhere, else one per namespace it may), each object reduced as it enters the cache.
// Everything is read with the user's own credentials, so the API server's RBAC decides what shows.
import type { KubernetesObject } from '@kubernetes/client-node';
import { CLUSTER_QUEUES, LOCAL_QUEUES, QUEUE_GROUP, QUEUE_VERSION } from '../api/queues/types.ts';
import { GROUP, KIND, PLURAL, VERSION } from '../api/v1/constants.ts';
import { Informer, stripForCache, type InformerHandler, type ListPage } from '../runtime/informer.ts';
import type { KubeClients } from '../runtime/kube-client.ts';
import type { Logger } from '../runtime/logger.ts';
import { reduceEvent, reduceNode, reducePod, type CachedEvent, type CachedNode, type CachedPod } from './reduce.ts';
import type { Access } from './types.ts';

export interface KindSpec {
  /** API path prefix of the collection, without `namespaces/NS`: `/api/v1`, `/apis/GROUP/VERSION`. */
  readonly prefix: string;
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly fieldSelector?: string;
}

export const KINDS = {
  tfjobs: { prefix: `/apis/${GROUP}/${VERSION}`, group: GROUP, resource: PLURAL, namespaced: true },
  pods: { prefix: '/api/v1', group: '', resource: 'pods', namespaced: true },
  nodes: { prefix: '/api/v1', group: '', resource: 'nodes', namespaced: false },
  events: { prefix: '/api/v1', group: '', resource: 'events', namespaced: true, fieldSelector: `involvedObject.kind=${KIND}` },
  clusterqueues: { prefix: `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}`, group: QUEUE_GROUP, resource: CLUSTER_QUEUES, namespaced: false },
  localqueues: { prefix: `/apis/${QUEUE_GROUP}/${QUEUE_VERSION}`, group: QUEUE_GROUP, resource: LOCAL_QUEUES, namespaced: true },
} as const satisfies Record<string, KindSpec>;

export type KindName = keyof typeof KINDS;

export function collectionPath(spec: KindSpec, namespace: string | undefined): string {
  return namespace === undefined ? `${spec.prefix}/${spec.resource}` : `${spec.prefix}/namespaces/${namespace}/${spec.resource}`;
}

/** A kind's informers (one cluster-wide, or one per namespace), read as one. */
export class KindCache<T extends KubernetesObject> {
  readonly informers: readonly Informer<T, KubernetesObject>[];

  constructor(informers: readonly Informer<T, KubernetesObject>[]) {
    this.informers = informers;
  }

  list(): T[] {
    return this.informers.flatMap((i) => i.store.list());
  }

  get(key: string): T | undefined {
    for (const i of this.informers) {
      const v = i.store.get(key);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  on(handler: InformerHandler<T>): void {
    for (const i of this.informers) i.on(handler);
  }
}

export interface Caches {
  readonly tfjobs: KindCache<KubernetesObject>;
  readonly pods: KindCache<CachedPod>;
  readonly nodes: KindCache<CachedNode>;
  readonly events: KindCache<CachedEvent>;
  readonly clusterqueues: KindCache<KubernetesObject>;
  readonly localqueues: KindCache<KubernetesObject>;
}

function query(opts: { limit: number; continueToken?: string | undefined; fieldSelector?: string | undefined }): string {
  const q = new URLSearchParams({ limit: String(opts.limit) });
  if (opts.continueToken !== undefined) q.set('continue', opts.continueToken);
  if (opts.fieldSelector !== undefined) q.set('fieldSelector', opts.fieldSelector);
  return q.toString();
}

function informersOf<T extends KubernetesObject>(
  deps: { readonly clients: KubeClients; readonly logger: Logger },
  kind: KindName,
  access: Access[string] | undefined,
  transform: (raw: KubernetesObject) => T,
): KindCache<T> {
  const spec: KindSpec = KINDS[kind];
  const scopes = access?.scope === 'cluster' ? [undefined] : access?.scope === 'namespaces' ? access.namespaces : [];
  return new KindCache(
    scopes.map((ns) => {
      const path = collectionPath(spec, ns);
      return new Informer<T, KubernetesObject>(
        deps.clients.kubeConfig,
        {
          list: ({ limit, continueToken }) =>
            deps.clients.request<ListPage<KubernetesObject>>(
              'GET',
              `${path}?${query({ limit, continueToken, fieldSelector: spec.fieldSelector })}`,
            ),
          watchPath: path,
          ...(spec.fieldSelector === undefined ? {} : { fieldSelector: spec.fieldSelector }),
        },
        { name: `dashboard/${kind}${ns === undefined ? '' : `/${ns}`}`, logger: deps.logger, transform },
      );
    }),
  );
}

export function createCaches(deps: { readonly clients: KubeClients; readonly logger: Logger }, access: Access): Caches {
  const strip = (o: KubernetesObject) => stripForCache(o);
  return {
    tfjobs: informersOf(deps, 'tfjobs', access['tfjobs'], strip),
    pods: informersOf(deps, 'pods', access['pods'], reducePod),
    nodes: informersOf(deps, 'nodes', access['nodes'], reduceNode),
    events: informersOf(deps, 'events', access['events'], reduceEvent),
    clusterqueues: informersOf(deps, 'clusterqueues', access['clusterqueues'], strip),
    localqueues: informersOf(deps, 'localqueues', access['localqueues'], strip),
  };
}

export function allInformers(caches: Caches): Informer<KubernetesObject>[] {
  return Object.values(caches).flatMap((c: KindCache<KubernetesObject>) => [...c.informers]);
}
