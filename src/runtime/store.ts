// The informer's cache: objects by `namespace/name`, plus secondary indexes (e.g. pods by owner UID,
// pods by node) so the reconciler never scans every pod. Objects are frozen snapshots shared with
// event handlers: never mutate them, clone before building a write.
import type { KubernetesObject } from '@kubernetes/client-node';

export type IndexFunc<T> = (obj: T) => readonly string[];

/** `namespace/name`: how stores, the work queue and the scheduler's decisions key a namespaced object. */
export function namespacedKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** An object's key: `namespace/name`, or the bare name of a cluster-scoped object. */
export function objectKey(obj: KubernetesObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns === undefined || ns === '' ? name : namespacedKey(ns, name);
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class Store<T extends KubernetesObject> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  readonly #indexes = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    for (const [name, fn] of Object.entries(indexers)) {
      this.#indexers.set(name, fn);
      this.#indexes.set(name, new Map());
    }
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  keys(): IterableIterator<string> {
    return this.#items.keys();
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  /** Objects whose index `indexName` contains `value`. */
  byIndex(indexName: string, value: string): T[] {
    const keys = this.#indexes.get(indexName)?.get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.#items.get(k);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  /** Distinct values currently present in an index. */
  indexValues(indexName: string): string[] {
    return [...(this.#indexes.get(indexName)?.keys() ?? [])];
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    this.#items.set(key, obj);
    this.#index(key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  #index(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(obj)) {
        let set = index.get(value);
        if (set === undefined) index.set(value, (set = new Set()));
        set.add(key);
      }
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(obj)) {
        const set = index.get(value);
        set?.delete(key);
        if (set?.size === 0) index.delete(value);
      }
    }
  }
}
