// List + watch into a Store, with the recovery client-node's ListWatch lacks (kube-rs's watcher is
// the model): paginated lists, bookmarks, server-side watch timeouts, reconnect from the last
// resourceVersion with jittered exponential backoff, relist on 410 Gone with synthetic deletes for
// objects that vanished meanwhile, and an inactivity timeout (client-node's Watch) against silent
// stalls. Handlers see (type, object, previous) and are called after the store is updated.
//
// An optional transform (client-go's SetTransform) turns each object from the API (`Raw`) into what
// the store holds (`T`) as it enters the cache: a reduced copy, or a typed value parsed once.
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { httpStatus } from './http-status.ts';
import type { Logger } from './logger.ts';
import { objectKey, Store, type IndexFunc } from './store.ts';

export interface ListPage<T> {
  readonly items: readonly T[];
  readonly metadata?: { readonly resourceVersion?: string; readonly _continue?: string; readonly continue?: string };
}

export interface ListerWatcher<T> {
  /** One page of a list; `continueToken` is the previous page's continue token. */
  list(opts: { limit: number; continueToken?: string }): Promise<ListPage<T>>;
  /** Collection path to watch, e.g. `/api/v1/pods` or `/apis/kubeflow.org/v1/namespaces/ml/tfjobs`. */
  readonly watchPath: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export type InformerEvent = 'add' | 'update' | 'delete';
export type InformerHandler<T> = (type: InformerEvent, obj: T, old: T | undefined) => void;

/**
 * Applied to every object before it is cached (e.g. drop managedFields, or parse into a typed value).
 * Required when the cached type differs from the API's, optional (identity) when they are the same.
 */
type TransformOption<Raw, T> = [Raw] extends [T] ? { readonly transform?: (obj: Raw) => T } : { readonly transform: (obj: Raw) => T };

export type InformerOptions<T, Raw = T> = InformerOptionsBase<T> & TransformOption<Raw, T>;

interface InformerOptionsBase<T> {
  readonly name: string;
  readonly logger: Logger;
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  readonly pageSize?: number;
  /** Server-side watch timeout range; each watch picks a random value in it (spreads reconnects). */
  readonly watchTimeoutSeconds?: readonly [number, number];
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Called on every (re)connect and relist, e.g. to count them in metrics. */
  readonly onWatchEvent?: (what: 'list' | 'watch' | 'error' | 'gone') => void;
  /**
   * Which objects the store holds, as a selector the API server cannot evaluate would: one that
   * stops matching leaves the store with a delete event (carrying its new state), one that never
   * matched is not stored. Absent: every object.
   */
  readonly keep?: (obj: T) => boolean;
}

interface WatchError {
  readonly statusCode?: number;
  /** client-node ApiException (list failures) carries the HTTP status here. */
  readonly code?: number;
  readonly name?: string;
  readonly message?: string;
}

/** Drops fields the operator never reads and that dominate memory (managedFields, last-applied). */
export function stripForCache<T extends KubernetesObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta === undefined) return obj;
  const { managedFields: _mf, ...rest } = meta;
  const annotations = rest.annotations;
  if (annotations !== undefined && 'kubectl.kubernetes.io/last-applied-configuration' in annotations) {
    const { 'kubectl.kubernetes.io/last-applied-configuration': _last, ...keep } = annotations;
    return { ...obj, metadata: { ...rest, annotations: keep } };
  }
  return _mf === undefined ? obj : { ...obj, metadata: rest };
}

/** What a consumer of an informer sees: the cache and its events, whatever the API type was. */
export interface CacheInformer<T extends KubernetesObject> {
  readonly name: string;
  readonly store: Store<T>;
  readonly hasSynced: boolean;
  on(handler: InformerHandler<T>): void;
  start(): void;
  stop(): void;
  waitForSync(): Promise<void>;
  /** Lists again now and watches on from there; resolves once that list is in the store. */
  resync(): Promise<void>;
}

/** Handlers always see cached (transformed) values, the object of a delete event included. */
export class Informer<T extends KubernetesObject, Raw extends KubernetesObject = T> implements CacheInformer<T> {
  readonly name: string;
  readonly store: Store<T>;
  readonly #kc: KubeConfig;
  readonly #lw: ListerWatcher<Raw>;
  readonly #opts: InformerOptionsBase<T>;
  readonly #transform: (obj: Raw) => T;
  readonly #log: Logger;
  readonly #handlers: InformerHandler<T>[] = [];
  readonly #syncWaiters: (() => void)[] = [];
  /** Waiting for the next complete list (`resync`). */
  readonly #listWaiters: (() => void)[] = [];
  /**
   * Bumped by `resync`: a watch, retry or list of an earlier generation is abandoned and changes
   * nothing (its callbacks may still arrive after the new list started).
   */
  #generation = 0;
  #resourceVersion: string | undefined;
  #synced = false;
  #stopped = true;
  #abort: AbortController | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #failures = 0;
  #lastActivity = 0;

  constructor(kc: KubeConfig, lw: ListerWatcher<Raw>, opts: InformerOptions<T, Raw>) {
    this.name = opts.name;
    this.#kc = kc;
    this.#lw = lw;
    this.#opts = opts;
    // Without a transform Raw is T (TransformOption makes it required otherwise).
    this.#transform = opts.transform ?? ((obj: Raw) => obj as unknown as T);
    this.#log = opts.logger.child({ informer: opts.name });
    this.store = new Store<T>(opts.indexers);
  }

  /** True once the first full list has been loaded into the store. */
  get hasSynced(): boolean {
    return this.#synced;
  }

  /** Wall-clock ms of the last list, event or bookmark (liveness checks). */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  on(handler: InformerHandler<T>): void {
    this.#handlers.push(handler);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#abort?.abort();
    this.#abort = undefined;
    for (const w of this.#listWaiters.splice(0)) w();
  }

  /**
   * Lists again now (a consistent read: no resourceVersion) and watches on from that list; resolves
   * once the list is in the store (or the informer stopped). For a replica that just became the
   * leader: its watch may lag behind writes the previous leader made just before handing over, and
   * a scheduler acting on such a cache would count their room as free.
   */
  resync(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#generation += 1;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#resourceVersion = undefined;
    this.#failures = 0;
    const listed = new Promise<void>((resolve) => this.#listWaiters.push(resolve));
    void this.#run();
    return listed;
  }

  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  async #run(): Promise<void> {
    const generation = this.#generation;
    try {
      if (this.#resourceVersion === undefined) await this.#relist(generation);
      if (this.#stopped || generation !== this.#generation) return;
      await this.#watch(generation);
    } catch (err) {
      if (generation === this.#generation) this.#retry(err as WatchError);
    }
  }

  async #relist(generation: number): Promise<void> {
    const pageSize = this.#opts.pageSize ?? 500;
    const seen = new Set<string>();
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    const fresh: T[] = [];
    const transform = this.#transform;
    do {
      const page = await this.#lw.list({ limit: pageSize, continueToken });
      if (this.#stopped || generation !== this.#generation) return;
      resourceVersion ??= page.metadata?.resourceVersion;
      // Transformed page by page: holding every full object of a large list until the last page
      // would make the start-up peak (and the RSS V8 keeps afterwards) as big as an untransformed cache.
      for (const item of page.items) {
        const obj = transform(item);
        if (this.#opts.keep?.(obj) !== false) fresh.push(obj);
      }
      continueToken = page.metadata?._continue ?? page.metadata?.continue;
      if (continueToken === '') continueToken = undefined;
    } while (continueToken !== undefined);
    // Apply only a complete list, so a failure mid-way never produces spurious deletes.
    for (const item of fresh) {
      seen.add(objectKey(item));
      this.#store('ADDED', item);
    }
    for (const key of [...this.store.keys()]) {
      if (!seen.has(key)) {
        const old = this.store.delete(key);
        if (old !== undefined) this.#emit('delete', old, undefined);
      }
    }
    this.#resourceVersion = resourceVersion;
    this.#lastActivity = Date.now();
    this.#opts.onWatchEvent?.('list');
    this.#log.debug({ objects: this.store.size, resourceVersion }, 'Listed');
    if (!this.#synced) {
      this.#synced = true;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
    for (const w of this.#listWaiters.splice(0)) w();
  }

  async #watch(generation: number): Promise<void> {
    const [lo, hi] = this.#opts.watchTimeoutSeconds ?? [240, 300];
    const timeoutSeconds = Math.round(lo + Math.random() * (hi - lo));
    const watch = new Watch(this.#kc);
    let gone = false;
    const done = (err: unknown) => {
      // A watch of an earlier generation (aborted by resync) says nothing about the current one.
      if (generation !== this.#generation) return;
      this.#abort = undefined;
      if (this.#stopped) return;
      if (gone) {
        // 410 inside the stream: the resourceVersion is too old; relist.
        this.#resourceVersion = undefined;
        this.#opts.onWatchEvent?.('gone');
        void this.#run();
        return;
      }
      if (err === null || err === undefined || (err as WatchError).name === 'TimeoutError') {
        // A clean close (server timeout) or our inactivity timeout: resume from the last RV at once.
        this.#failures = 0;
        void this.#run();
        return;
      }
      this.#retry(err);
    };
    const abort = await watch.watch(
      this.#lw.watchPath,
      {
        allowWatchBookmarks: true,
        timeoutSeconds,
        resourceVersion: this.#resourceVersion,
        labelSelector: this.#lw.labelSelector,
        fieldSelector: this.#lw.fieldSelector,
      },
      (type: string, obj: unknown) => {
        if (generation !== this.#generation) return;
        this.#lastActivity = Date.now();
        this.#failures = 0;
        if (type === 'ERROR') {
          const status = obj as { code?: number; message?: string };
          if (status.code === 410) gone = true;
          else this.#log.warn({ status }, 'Watch returned an error event');
          return;
        }
        this.#apply(type, obj as Raw);
      },
      done,
    );
    this.#opts.onWatchEvent?.('watch');
    if (this.#stopped || generation !== this.#generation) {
      abort.abort();
      return;
    }
    this.#abort = abort;
  }

  #apply(type: string, raw: Raw): void {
    if (type === 'BOOKMARK') {
      const rv = raw.metadata?.resourceVersion;
      if (rv !== undefined) this.#resourceVersion = rv;
      return;
    }
    this.#store(type, this.#transform(raw), raw.metadata?.resourceVersion);
  }

  /** `obj` is already transformed; `rv` is the resourceVersion of the object as received. */
  #store(type: string, obj: T, rv = obj.metadata?.resourceVersion): void {
    Object.freeze(obj);
    if (type === 'DELETED') {
      const old = this.store.delete(objectKey(obj));
      if (rv !== undefined && this.#synced) this.#resourceVersion = rv;
      if (old !== undefined || this.#opts.keep?.(obj) !== false) this.#emit('delete', obj, old);
      return;
    }
    const old = this.store.get(objectKey(obj));
    if (old?.metadata?.resourceVersion === rv && old !== undefined) return; // unchanged (relist)
    if (this.#opts.keep?.(obj) === false) {
      // Left (or never entered) what the store holds: for its handlers, it is gone.
      if (old !== undefined) this.store.delete(objectKey(obj));
      if (rv !== undefined && this.#synced) this.#resourceVersion = rv;
      if (old !== undefined) this.#emit('delete', obj, old);
      return;
    }
    this.store.upsert(obj);
    if (rv !== undefined && this.#synced) this.#resourceVersion = rv;
    this.#emit(old === undefined ? 'add' : 'update', obj, old);
  }

  #emit(type: InformerEvent, obj: T, old: T | undefined): void {
    for (const handler of this.#handlers) {
      try {
        handler(type, obj, old);
      } catch (err) {
        this.#log.error({ err }, 'Informer event handler failed');
      }
    }
  }

  #retry(err: WatchError): void {
    if (this.#stopped) return;
    if (httpStatus(err) === 410) {
      this.#resourceVersion = undefined;
      this.#opts.onWatchEvent?.('gone');
    } else {
      this.#opts.onWatchEvent?.('error');
    }
    const { initialMs, maxMs } = this.#opts.backoff ?? { initialMs: 800, maxMs: 30_000 };
    const base = Math.min(maxMs, initialMs * 2 ** this.#failures);
    const delay = base / 2 + Math.random() * (base / 2);
    this.#failures += 1;
    this.#log.warn({ err: { message: err.message, statusCode: httpStatus(err) }, retryInMs: Math.round(delay) }, 'Watch failed; retrying');
    const generation = this.#generation;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (generation === this.#generation) void this.#run();
    }, delay);
    this.#retryTimer.unref();
  }
}
