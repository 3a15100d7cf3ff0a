// The operator's caches: TFJobs, and the pods and services it owns (selected by the operator-name
// label), per managed namespace or cluster-wide; pods come from the one pod cache (pod-cache.ts) when
// the operator places pods itself. Pods and services are indexed by their controlling TFJob
// (`namespace/name`) so a reconcile never scans every pod, and cached reduced to the fields the
// operator reads (docs/benchmarks.md, memory). TFJobs are parsed, validated and defaulted once, as they
// enter the cache (TFJobEntry): every consumer reads the typed entry.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { CONTROLLER_NAME, GROUP, KIND, LABEL_OPERATOR_NAME, PLURAL, VERSION } from '../api/v1/constants.ts';
import { toTFJobEntry, type TFJobEntry } from '../api/v1/parse.ts';
import {
  Informer,
  stripForCache,
  type CacheInformer,
  type InformerHandler,
  type ListPage,
  type ListerWatcher,
} from '../runtime/informer.ts';
import type { KubeClients } from '../runtime/kube-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import { namespacedKey, type IndexFunc } from '../runtime/store.ts';
import { reduceOwnedPod } from './pod-reduction.ts';

export const OWNED_SELECTOR = `${LABEL_OPERATOR_NAME}=${CONTROLLER_NAME}`;
export const BY_JOB = 'job';

/** `namespace/name` of the TFJob controlling `obj`, if any. */
export function controllingJobKey(obj: KubernetesObject): string | undefined {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === KIND && r.apiVersion.startsWith(`${GROUP}/`));
  const ns = obj.metadata?.namespace;
  return ref === undefined || ns === undefined ? undefined : namespacedKey(ns, ref.name);
}

const byJob: IndexFunc<KubernetesObject> = (obj) => {
  const key = controllingJobKey(obj);
  return key === undefined ? [] : [key];
};

/** One logical informer over several namespaces (or one cluster-wide informer). */
export class NamespacedInformers<T extends KubernetesObject> {
  readonly #byNamespace = new Map<string, CacheInformer<T>>();
  readonly #all: CacheInformer<T> | undefined;

  constructor(namespaces: readonly string[], make: (namespace: string | undefined) => CacheInformer<T>) {
    if (namespaces.length === 0) this.#all = make(undefined);
    else for (const ns of namespaces) this.#byNamespace.set(ns, make(ns));
  }

  get informers(): CacheInformer<T>[] {
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

  /** Lists every namespace again now (Informer.resync). */
  async resync(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.resync()));
  }
}

/**
 * The pods of the TFJobs this operator manages, in every phase, indexed by job: what the TFJob
 * controller and the progress loop read. Per managed namespace in `tf-operator` mode, else a view of
 * the one pod cache (pod-cache.ts).
 */
export interface OwnedPods {
  get(key: string): V1Pod | undefined;
  byIndex(index: typeof BY_JOB, value: string): V1Pod[];
  readonly size: number;
  on(handler: InformerHandler<V1Pod>): void;
  start(): void;
  stop(): void;
  readonly hasSynced: boolean;
  waitForSync(): Promise<void>;
  /** Lists again now (Informer.resync). */
  resync(): Promise<void>;
}

/** A TFJob as the API returns it, before the cache parses it. */
export interface TFJobObject extends KubernetesObject {
  readonly spec?: unknown;
  readonly status?: unknown;
}

/** The cache's transform for TFJobs: strip, then parse, validate and default (once per version). */
export function tfjobEntry(raw: TFJobObject): TFJobEntry {
  return toTFJobEntry(stripForCache(raw));
}

export interface OperatorCaches {
  readonly tfjobs: NamespacedInformers<TFJobEntry>;
  readonly pods: OwnedPods;
  readonly services: NamespacedInformers<V1Service>;
}

interface Deps {
  readonly kc: KubeConfig;
  readonly clients: KubeClients;
  readonly namespaces: readonly string[];
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
}

/** An owned service: only its metadata is read (which replica it serves, owner, deletion). */
export function reduceOwnedService(service: V1Service): V1Service {
  const stripped = stripForCache(service);
  return {
    ...(service.apiVersion === undefined ? {} : { apiVersion: service.apiVersion }),
    ...(service.kind === undefined ? {} : { kind: service.kind }),
    metadata: stripped.metadata,
  };
}

function informerOptions<T extends KubernetesObject, Raw extends KubernetesObject>(
  deps: Deps,
  name: string,
  indexed: boolean,
  transform: (o: Raw) => T,
) {
  return {
    name,
    logger: deps.logger,
    transform,
    ...(indexed ? { indexers: { [BY_JOB]: byJob as IndexFunc<T> } } : {}),
    onWatchEvent: (event: string) => deps.metrics?.informerEvents.inc({ informer: name, event }),
  };
}

/** Informers of a core kind the operator owns (selected by its label), indexed by controlling job. */
function ownedInformers<T extends KubernetesObject>(
  deps: Deps,
  resource: 'pods' | 'services',
  transform: (obj: T) => T,
  list: (namespace: string | undefined, limit: number, continueToken: string | undefined) => Promise<ListPage<T>>,
): NamespacedInformers<T> {
  return new NamespacedInformers<T>(deps.namespaces, (ns) => {
    const lw: ListerWatcher<T> = {
      list: ({ limit, continueToken }) => list(ns, limit, continueToken),
      watchPath: ns === undefined ? `/api/v1/${resource}` : `/api/v1/namespaces/${ns}/${resource}`,
      labelSelector: OWNED_SELECTOR,
    };
    return new Informer(deps.kc, lw, informerOptions(deps, ns === undefined ? resource : `${resource}/${ns}`, true, transform));
  });
}

/** `pods`: the one pod cache's view (pod-cache.ts) when the operator places pods; absent: its own pods only. */
export function createOperatorCaches(deps: Deps & { readonly pods?: OwnedPods }): OperatorCaches {
  const core = deps.clients.api(CoreV1Api);
  const custom = deps.clients.api(CustomObjectsApi);

  const tfjobs = new NamespacedInformers<TFJobEntry>(deps.namespaces, (ns) => {
    const lw: ListerWatcher<TFJobObject> = {
      list: ({ limit, continueToken }) =>
        (ns === undefined
          ? custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, limit, _continue: continueToken })
          : custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              plural: PLURAL,
              namespace: ns,
              limit,
              _continue: continueToken,
            })) as Promise<ListPage<TFJobObject>>,
      watchPath: ns === undefined ? `/apis/${GROUP}/${VERSION}/${PLURAL}` : `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`,
    };
    return new Informer(deps.kc, lw, informerOptions(deps, ns === undefined ? 'tfjobs' : `tfjobs/${ns}`, false, tfjobEntry));
  });

  const pods =
    deps.pods ??
    ownedInformers(deps, 'pods', reduceOwnedPod, (ns, limit, _continue) =>
      ns === undefined
        ? core.listPodForAllNamespaces({ labelSelector: OWNED_SELECTOR, limit, _continue })
        : core.listNamespacedPod({ namespace: ns, labelSelector: OWNED_SELECTOR, limit, _continue }),
    );
  const services = ownedInformers(deps, 'services', reduceOwnedService, (ns, limit, _continue) =>
    ns === undefined
      ? core.listServiceForAllNamespaces({ labelSelector: OWNED_SELECTOR, limit, _continue })
      : core.listNamespacedService({ namespace: ns, labelSelector: OWNED_SELECTOR, limit, _continue }),
  );

  return { tfjobs, pods, services };
}
