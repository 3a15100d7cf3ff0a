// A work queue with client-go's semantics, the heart of requeue-on-failure:
// - a key is queued at most once however often it is added (dedup);
// - a key being processed is never handed to a second worker; if it is added meanwhile it is marked
//   dirty and queued again when the first worker calls done();
// - addAfter() delays a key (the earliest requested time wins); addRateLimited() delays it by the
//   rate limiter (per-key exponential backoff plus a global bucket), forget() resets that backoff.
import { MinHeap } from './min-heap.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface WorkQueueObserver {
  added?(key: string): void;
  /** Called when a worker takes `key`, with how long it waited in the queue. */
  started?(key: string, queuedMs: number): void;
  /** Called when a worker finishes `key`, with how long it worked on it. */
  finished?(key: string, workMs: number): void;
  retried?(key: string): void;
}

export interface WorkQueueOptions {
  readonly rateLimiter?: RateLimiter;
  readonly observer?: WorkQueueObserver;
  readonly now?: () => number;
}

export class WorkQueue {
  readonly #queue: string[] = [];
  #head = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Map<string, number>();
  readonly #addedAt = new Map<string, number>();
  readonly #waiting = new Map<string, number>();
  readonly #delayed = new MinHeap<string>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  readonly #getters: ((key: string | undefined) => void)[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  readonly #rateLimiter: RateLimiter;
  readonly #observer: WorkQueueObserver;
  readonly #now: () => number;

  constructor(opts: WorkQueueOptions = {}) {
    this.#rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.#observer = opts.observer ?? {};
    this.#now = opts.now ?? (() => performance.now());
  }

  /** Keys ready to be processed (not counting delayed or in-flight ones). */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  get processing(): number {
    return this.#processing.size;
  }

  /** Keys waiting for a delay to expire. */
  get delayed(): number {
    return this.#waiting.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#now());
    this.#observer.added?.(key);
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.#now() + delayMs;
    const current = this.#waiting.get(key);
    if (current !== undefined && current <= at) return;
    this.#waiting.set(key, at);
    this.#delayed.push(at, key);
    this.#arm();
  }

  addRateLimited(key: string): void {
    this.#observer.retried?.(key);
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#rateLimiter.retries(key);
  }

  /** The next key to work on, or undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#observer.finished?.(key, this.#now() - started);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    if (this.#processing.size === 0) for (const w of this.#drainWaiters.splice(0)) w();
  }

  /** Seconds of work in progress that has not finished (controller-runtime's unfinished_work). */
  unfinishedWorkSeconds(): number {
    const now = this.#now();
    let total = 0;
    for (const started of this.#processing.values()) total += now - started;
    return total / 1000;
  }

  longestRunningProcessorSeconds(): number {
    const now = this.#now();
    let longest = 0;
    for (const started of this.#processing.values()) longest = Math.max(longest, now - started);
    return longest / 1000;
  }

  /** Stops handing out keys; pending get() calls resolve to undefined. In-flight keys may finish. */
  shutdown(): void {
    this.#shuttingDown = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const g of this.#getters.splice(0)) g(undefined);
  }

  /** shutdown(), then wait until every in-flight key is done (graceful stop). */
  async shutdownWithDrain(): Promise<void> {
    this.shutdown();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  #push(key: string): void {
    const getter = this.#getters.shift();
    if (getter !== undefined) {
      this.#markProcessing(key);
      getter(key);
      return;
    }
    this.#queue.push(key);
  }

  #take(): string | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const key = this.#queue[this.#head]!;
    this.#head += 1;
    // Compact occasionally so the array does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#markProcessing(key);
    return key;
  }

  #markProcessing(key: string): void {
    const now = this.#now();
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    const added = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    this.#observer.started?.(key, added === undefined ? 0 : now - added);
  }

  #arm(): void {
    const next = this.#delayed.peek();
    if (next === undefined || next.priority >= this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = next.priority;
    this.#timer = setTimeout(
      () => {
        this.#fire();
      },
      Math.max(0, next.priority - this.#now()),
    );
    // A pending requeue must not keep a finished process alive.
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#now();
    for (let next = this.#delayed.peek(); next !== undefined && next.priority <= now; next = this.#delayed.peek()) {
      this.#delayed.pop();
      // Stale heap entries (superseded by an earlier addAfter) are skipped.
      if (this.#waiting.get(next.value) !== next.priority) continue;
      this.#waiting.delete(next.value);
      this.add(next.value);
    }
    this.#arm();
  }
}
