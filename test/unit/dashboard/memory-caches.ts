// In-memory stand-ins for the dashboard's watch caches, so the views and the recorder are tested as
// pure logic: `put` and `remove` update the cache and call its handlers as an informer would.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Caches, KindCache } from '../../../src/dashboard/sources.ts';
import type { CachedEvent, CachedNode, CachedPod } from '../../../src/dashboard/reduce.ts';
import { objectKey } from '../../../src/runtime/store.ts';
import type { InformerHandler } from '../../../src/runtime/informer.ts';

export interface MemoryCache<T extends KubernetesObject> {
  readonly cache: KindCache<T>;
  put(obj: T): void;
  remove(key: string): void;
}

export function memoryCache<T extends KubernetesObject>(): MemoryCache<T> {
  const items = new Map<string, T>();
  const handlers: InformerHandler<T>[] = [];
  const cache = {
    informers: [],
    list: () => [...items.values()],
    get: (key: string) => items.get(key),
    on: (h: InformerHandler<T>) => {
      handlers.push(h);
    },
  } satisfies KindCache<T>;
  return {
    cache,
    put(obj) {
      const key = objectKey(obj);
      const old = items.get(key);
      items.set(key, obj);
      for (const h of handlers) h(old === undefined ? 'add' : 'update', obj, old);
    },
    remove(key) {
      const old = items.get(key);
      if (old === undefined) return;
      items.delete(key);
      for (const h of handlers) h('delete', old, undefined);
    },
  };
}

export function memoryCaches() {
  const all = {
    tfjobs: memoryCache<KubernetesObject>(),
    pods: memoryCache<CachedPod>(),
    nodes: memoryCache<CachedNode>(),
    events: memoryCache<CachedEvent>(),
    clusterqueues: memoryCache<KubernetesObject>(),
    localqueues: memoryCache<KubernetesObject>(),
  };
  const caches: Caches = {
    tfjobs: all.tfjobs.cache,
    pods: all.pods.cache,
    nodes: all.nodes.cache,
    events: all.events.cache,
    clusterqueues: all.clusterqueues.cache,
    localqueues: all.localqueues.cache,
  };
  return { ...all, caches };
}
