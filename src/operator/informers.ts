// The operator's caches: TFJobs, and the pods and services it owns (selected by the operator-name
// label), per managed namespace or cluster-wide. Pods and services are indexed by their controlling
// TFJob (`namespace/name`) so a reconcile never scans every pod.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { CONTROLLER_NAME, GROUP, KIND, LABEL_OPERATOR_NAME, PLURAL, VERSION } from '../api/v1/constants.ts';
import { Informer, stripForCache, type InformerHandler, type ListPage, type ListerWatcher } from '../runtime/informer.ts';
import type { KubeClients } from '../runtime/kube-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import type { IndexFunc } from '../runtime/store.ts';

export const OWNED_SELECTOR = `${LABEL_OPERATOR_NAME}=${CONTROLLER_NAME}`;
export const BY_JOB = 'job';

/** `namespace/name` of the TFJob controlling `obj`, if any. */
export function controllingJobKey(obj: KubernetesObject): string | undefined {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === KIND && r.apiVersion.startsWith(`${GROUP}/`));
  const ns = obj.metadata?.namespace;
  return ref === undefined || ns === undefined ? undefined : `${ns}/${ref.name}`;
}

const byJob: IndexFunc<KubernetesObject> = (obj) => {
  const key = controllingJobKey(obj);
  return key === undefined ? [] : [key];
};

/** One logical informer over several namespaces (or one cluster-wide informer). */
export class NamespacedInformers<T extends KubernetesObject> {
  readonly #byNamespace = new Map<string, Informer<T>>();
  readonly #all: Informer<T> | undefined;

  constructor(namespaces: readonly string[], make: (namespace: string | undefined) => Informer<T>) {
    if (namespaces.length === 0) this.#all = make(undefined);
    else for (const ns of namespaces) this.#byNamespace.set(ns, make(ns));
  }

  get informers(): Informer<T>[] {
    return this.#all === undefined ? [...this.#byNamespace.values()] : [this.#all];
  }

  get(key: string): T | undefined {
    if (this.#all !== undefined) return this.#all.store.get(key);
    const ns = key.slice(0, key.indexOf('/'));
    return this.#byNamespace.get(ns)?.store.get(key);
  }

  byIndex(index: string, value: string): T[] {
    if (this.#all !== undefined) return this.#all.store.byIndex(index, value);
    const ns = value.slice(0, value.indexOf('/'));
    return this.#byNamespace.get(ns)?.store.byIndex(index, value) ?? [];
  }

  list(): T[] {
    return this.informers.flatMap((i) => i.store.list());
  }

  get size(): number {
    return this.informers.reduce((n, i) => n + i.store.size, 0);
  }

  on(handler: InformerHandler<T>): void {
    for (const i of this.informers) i.on(handler);
  }

  start(): void {
    for (const i of this.informers) i.start();
  }

  stop(): void {
    for (const i of this.informers) i.stop();
  }

  get hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced);
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync()));
  }
}

export interface TFJobObject extends KubernetesObject {
  readonly spec?: unknown;
  readonly status?: unknown;
}

export interface OperatorCaches {
  readonly tfjobs: NamespacedInformers<TFJobObject>;
  readonly pods: NamespacedInformers<V1Pod>;
  readonly services: NamespacedInformers<V1Service>;
}

interface Deps {
  readonly kc: KubeConfig;
  readonly clients: KubeClients;
  readonly namespaces: readonly string[];
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
}

function informerOptions<T extends KubernetesObject>(deps: Deps, name: string, indexed: boolean) {
  return {
    name,
    logger: deps.logger,
    transform: (o: T) => stripForCache(o),
    ...(indexed ? { indexers: { [BY_JOB]: byJob as IndexFunc<T> } } : {}),
    onWatchEvent: (event: string) => deps.metrics?.informerEvents.inc({ informer: name, event }),
  };
}

export function createOperatorCaches(deps: Deps): OperatorCaches {
  const core = deps.clients.api(CoreV1Api);
  const custom = deps.clients.api(CustomObjectsApi);

  const tfjobs = new NamespacedInformers<TFJobObject>(deps.namespaces, (ns) => {
    const lw: ListerWatcher<TFJobObject> = {
      list: ({ limit, continueToken }) =>
        (ns === undefined
          ? custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, limit, _continue: continueToken })
          : custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: ns, limit, _continue: continueToken })) as Promise<ListPage<TFJobObject>>,
      watchPath: ns === undefined ? `/apis/${GROUP}/${VERSION}/${PLURAL}` : `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`,
    };
    return new Informer(deps.kc, lw, informerOptions<TFJobObject>(deps, ns === undefined ? 'tfjobs' : `tfjobs/${ns}`, false));
  });

  const pods = new NamespacedInformers<V1Pod>(deps.namespaces, (ns) => {
    const lw: ListerWatcher<V1Pod> = {
      list: ({ limit, continueToken }) =>
        ns === undefined
          ? core.listPodForAllNamespaces({ labelSelector: OWNED_SELECTOR, limit, _continue: continueToken })
          : core.listNamespacedPod({ namespace: ns, labelSelector: OWNED_SELECTOR, limit, _continue: continueToken }),
      watchPath: ns === undefined ? '/api/v1/pods' : `/api/v1/namespaces/${ns}/pods`,
      labelSelector: OWNED_SELECTOR,
    };
    return new Informer(deps.kc, lw, informerOptions<V1Pod>(deps, ns === undefined ? 'pods' : `pods/${ns}`, true));
  });

  const services = new NamespacedInformers<V1Service>(deps.namespaces, (ns) => {
    const lw: ListerWatcher<V1Service> = {
      list: ({ limit, continueToken }) =>
        ns === undefined
          ? core.listServiceForAllNamespaces({ labelSelector: OWNED_SELECTOR, limit, _continue: continueToken })
          : core.listNamespacedService({ namespace: ns, labelSelector: OWNED_SELECTOR, limit, _continue: continueToken }),
      watchPath: ns === undefined ? '/api/v1/services' : `/api/v1/namespaces/${ns}/services`,
      labelSelector: OWNED_SELECTOR,
    };
    return new Informer(deps.kc, lw, informerOptions<V1Service>(deps, ns === undefined ? 'services' : `services/${ns}`, true));
  });

  return { tfjobs, pods, services };
}
