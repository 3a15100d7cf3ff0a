// The reconcile loop (controller-runtime's contract): N workers take keys from the work queue and call
// the reconciler. Success forgets the key's backoff; `requeueAfterMs` schedules the next visit; an
// error requeues with per-key exponential backoff. A key is never reconciled by two workers at once.
import { randomUUID } from 'node:crypto';
import { httpStatus } from './http-status.ts';
import type { Logger } from './logger.ts';
import type { ControllerObserver, RuntimeMetrics } from './metrics.ts';
import { WorkQueue } from './workqueue.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface ReconcileResult {
  /** Visit this key again after this delay even if nothing changes (deadlines, TTLs, timers). */
  readonly requeueAfterMs?: number;
}

export interface ReconcileContext {
  readonly log: Logger;
  readonly reconcileID: string;
}

export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileResult | undefined>;

export interface ControllerOptions {
  readonly name: string;
  readonly reconciler: Reconciler;
  /**
   * The work queue, when others must enqueue before the controller exists (built with
   * `controllerQueue`); by default the controller makes its own.
   */
  readonly queue?: WorkQueue;
  readonly logger: Logger;
  readonly workers?: number;
  readonly metrics?: RuntimeMetrics;
  readonly rateLimiter?: RateLimiter;
  /** The object kind for log keys, e.g. `tfjob` → `{"tfjob":"ns/name"}`. */
  readonly objectLogKey?: string;
}

/** A controller's work queue, observed under the controller's name. */
export function controllerQueue(name: string, metrics?: RuntimeMetrics, rateLimiter?: RateLimiter): WorkQueue {
  return new WorkQueue({ rateLimiter, observer: metrics?.workQueueObserver(name) });
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #reconciler: Reconciler;
  readonly #log: Logger;
  readonly #workers: number;
  readonly #observer: ControllerObserver | undefined;
  readonly #objectLogKey: string;
  #running: Promise<void>[] = [];

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.#reconciler = opts.reconciler;
    this.#log = opts.logger.child({ controller: opts.name });
    this.#workers = opts.workers ?? 1;
    this.#objectLogKey = opts.objectLogKey ?? 'object';
    this.queue = opts.queue ?? controllerQueue(opts.name, opts.metrics, opts.rateLimiter);
    opts.metrics?.registerQueue(opts.name, this.queue);
    this.#observer = opts.metrics?.controllerObserver(opts.name, this.#workers);
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  /** Starts the workers; they run until stop(). */
  start(): void {
    if (this.#running.length > 0) return;
    this.#log.info({ workers: this.#workers }, 'Starting workers');
    this.#running = Array.from({ length: this.#workers }, () => this.#worker());
  }

  /** Stops taking work and waits for in-flight reconciles to finish (graceful shutdown). */
  async stop(): Promise<void> {
    await this.queue.shutdownWithDrain();
    await Promise.all(this.#running);
    this.#running = [];
    this.#log.info('Stopped workers');
  }

  async #worker(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      await this.#process(key);
    }
  }

  async #process(key: string): Promise<void> {
    const reconcileID = randomUUID();
    const log = this.#log.child({ [this.#objectLogKey]: key, reconcileID });
    const started = performance.now();
    this.#observer?.activeWorkers(1);
    let result: 'success' | 'error' | 'requeue' | 'requeue_after' = 'success';
    try {
      const res = await this.#reconciler(key, { log, reconcileID });
      this.queue.forget(key);
      if (res?.requeueAfterMs !== undefined && res.requeueAfterMs > 0) {
        result = 'requeue_after';
        this.queue.addAfter(key, res.requeueAfterMs);
      }
    } catch (err) {
      result = 'error';
      const retries = this.queue.numRequeues(key);
      this.queue.addRateLimited(key);
      // Conflicts are routine (a stale cache), and so is a 404 (the object was deleted while it was
      // being reconciled; the next visit finds it gone): keep them out of the error level.
      const code = httpStatus(err);
      if (code === 409) log.info({ err, retries }, 'Reconcile hit a conflict; requeued');
      else if (code === 404) log.debug({ err, retries }, 'Object gone during reconcile; requeued');
      else log.error({ err, retries }, 'Reconciler error; requeued with backoff');
    } finally {
      this.queue.done(key);
      this.#observer?.activeWorkers(-1);
      this.#observer?.reconciled(result, (performance.now() - started) / 1000);
    }
  }
}
