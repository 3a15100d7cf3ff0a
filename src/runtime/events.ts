// Kubernetes Events through the events.k8s.io/v1 API (kubectl describe shows them under the object).
// Recording never fails a reconcile: writes are asynchronous and errors are only logged. Pending
// writes are bounded like client-go's broadcaster queue: under a burst (thousands of pods created in
// seconds) new events are dropped rather than queued without limit, and a graceful stop waits for
// pending writes only up to a deadline (a backlog at the client rate limit would take minutes).
// A repeat of the same event (object, type, reason, message) within ten minutes updates the existing
// event's series count instead of creating another object, like client-go's EventCorrelator; and as
// there, similar events are aggregated and a per-object spam filter caps what one object can write
// (event-correlator.ts).
import {
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type KubernetesObject,
  type V1ObjectReference,
} from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { EventAggregator, EventSpamFilter } from './event-correlator.ts';
import type { KubeClients } from './kube-client.ts';
import type { Logger } from './logger.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(obj: KubernetesObject, type: EventType, reason: string, message: string, action?: string): void;
}

interface SeriesEntry {
  name: string;
  namespace: string;
  count: number;
  first: number;
  /** Settles once the event's create finished (true: it exists); series updates wait for it. */
  created: Promise<boolean>;
  /** The series' latest update; the next one waits for it, so counts are written in order. */
  updated: Promise<unknown>;
}

const SERIES_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 4096;
const MAX_MESSAGE = 1024;
/** Pending event writes beyond which new events are dropped (client-go's broadcaster queue length). */
export const MAX_PENDING_EVENTS = 1000;

export class KubeEventRecorder implements EventRecorder {
  readonly #api: EventsV1Api;
  readonly #controller: string;
  readonly #instance: string;
  readonly #log: Logger;
  readonly #queue = new PQueue({ concurrency: 4 });
  readonly #series = new Map<string, SeriesEntry>();
  readonly #maxPending: number;
  readonly #routineReasons: ReadonlySet<string>;
  readonly #unfilteredReasons: ReadonlySet<string>;
  /** Settlers of creates not finished yet (a stop that drops them settles them as not created). */
  readonly #unsettled = new Set<(exists: boolean) => void>();
  readonly #aggregator = new EventAggregator();
  readonly #spamFilter: EventSpamFilter;
  #seq = 0;
  #dropped = 0;
  #filtered = 0;

  constructor(
    clients: KubeClients,
    opts: {
      controller: string;
      instance: string;
      logger: Logger;
      maxPending?: number;
      spamFilter?: EventSpamFilter;
      /**
       * Normal events dropped first when writes pile up (client-go drops whatever comes when full):
       * the others get twice the room.
       */
      routineReasons?: ReadonlySet<string>;
      /** Reasons the per-object spam filter never holds back (rare by nature, e.g. a job's end). */
      unfilteredReasons?: ReadonlySet<string>;
    },
  ) {
    this.#api = clients.api(EventsV1Api);
    this.#controller = opts.controller;
    this.#instance = opts.instance;
    this.#log = opts.logger;
    this.#maxPending = opts.maxPending ?? MAX_PENDING_EVENTS;
    this.#routineReasons = opts.routineReasons ?? new Set();
    this.#unfilteredReasons = opts.unfilteredReasons ?? new Set();
    this.#spamFilter = opts.spamFilter ?? new EventSpamFilter();
  }

  /** Events dropped so far because too many writes were pending (or still pending at stop). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events not written because their object exceeded the spam filter's budget. */
  get filtered(): number {
    return this.#filtered;
  }

  event(obj: KubernetesObject, type: EventType, reason: string, message: string, action = 'Reconcile'): void {
    const meta = obj.metadata;
    const namespace = meta?.namespace ?? 'default';
    if (meta?.name === undefined) return;
    // Under a burst, routine events (pod and service created/deleted, thousands of them) are dropped
    // first: the ones a user asks about (a decision, a failure, a job's end) get twice the room.
    const routine = type === 'Normal' && this.#routineReasons.has(reason);
    if (this.#overflowing(routine, reason)) return;
    const objectId = meta.uid ?? `${namespace}/${meta.name}`;
    const now = Date.now();
    const aggregated = this.#aggregator.aggregate(objectId, type, reason, message, now);
    const repeat = this.#series.get(aggregated.seriesKey);
    // Only new event objects spend the object's budget: a repeat only raises an existing event's
    // count (client-go counts repeats too, and then drops a job's later, different events, such as
    // its success, after enough repeats of one that is re-emitted on every reconcile).
    if (repeat !== undefined && now - repeat.first < SERIES_WINDOW_MS) {
      this.#raiseSeries(repeat, reason);
      return;
    }
    // Routine events have a budget of their own: a suspension and resumption of a 5-replica job alone
    // writes 20 of them, and they must not spend the budget of the decisions a user asks about.
    const bucket = routine ? `${objectId}#routine` : objectId;
    if (!this.#unfilteredReasons.has(reason) && !this.#spamFilter.allow(bucket, now)) {
      this.#filtered += 1;
      this.#log.debug({ object: `${namespace}/${meta.name}`, reason }, 'Event filtered: too many events for this object');
      return;
    }
    const text = aggregated.message;
    const note = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
    const regarding: V1ObjectReference = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: meta.name,
      namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    };
    this.#createEvent(aggregated.seriesKey, now, { action, reason, note, type, regarding });
  }

  /** Too many writes pending for this event: counted and dropped (logged at powers of two). */
  #overflowing(routine: boolean, reason: string): boolean {
    if (this.#queue.size + this.#queue.pending < (routine ? this.#maxPending : 2 * this.#maxPending)) return false;
    // A burst that drops thousands says so a dozen times, not thousands.
    this.#dropped += 1;
    if ((this.#dropped & (this.#dropped - 1)) === 0)
      this.#log.warn({ dropped: this.#dropped, pending: this.#maxPending, reason }, 'Too many pending events; dropping new ones');
    return true;
  }

  /** A repeat within the window: the existing event's series count goes up. */
  #raiseSeries(entry: SeriesEntry, reason: string): void {
    entry.count += 1;
    const { name, namespace, count, created, updated } = entry;
    entry.updated = this.#queue.add(async () => {
      // A repeat right after the first must not patch an event whose create is still in flight,
      // nor overtake the previous update of its series (the count would go back).
      if (!(await created)) return;
      await updated;
      try {
        await this.#api.patchNamespacedEvent(
          { name, namespace, body: { series: { count, lastObservedTime: new V1MicroTime() } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (err) {
        this.#log.debug({ err, reason }, 'Failed to update an event series');
      }
    });
  }

  /** A new event object, tracked as the start of its series. */
  #createEvent(
    key: string,
    now: number,
    body: { action: string; reason: string; note: string; type: EventType; regarding: V1ObjectReference },
  ): void {
    const namespace = body.regarding.namespace ?? 'default';
    const name = `${body.regarding.name ?? ''}.${now.toString(16)}${(this.#seq++ % 4096).toString(16).padStart(3, '0')}`;
    if (this.#series.size >= MAX_TRACKED) {
      const oldest = this.#series.keys().next().value;
      if (oldest !== undefined) this.#series.delete(oldest);
    }
    let resolveCreated: (exists: boolean) => void = () => undefined;
    const created = new Promise<boolean>((resolve) => {
      resolveCreated = resolve;
    });
    const settle = (exists: boolean) => {
      this.#unsettled.delete(settle);
      resolveCreated(exists);
    };
    this.#unsettled.add(settle);
    this.#series.set(key, { name, namespace, count: 1, first: now, created, updated: created });
    void this.#queue.add(async () => {
      try {
        await this.#api.createNamespacedEvent({
          namespace,
          body: {
            metadata: { name, namespace },
            eventTime: new V1MicroTime(),
            reportingController: this.#controller,
            reportingInstance: this.#instance,
            ...body,
          },
        });
        settle(true);
      } catch (err) {
        settle(false);
        this.#log.debug({ err, reason: body.reason }, 'Failed to record an event');
      }
    });
  }

  /**
   * Waits for pending event writes (graceful shutdown, tests); with a deadline, drops what is still
   * queued by then so a stop never waits for a backlog.
   */
  async flush(deadlineMs?: number): Promise<void> {
    if (deadlineMs === undefined) {
      await this.#queue.onIdle();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => {
        resolve('expired');
      }, deadlineMs);
    });
    const outcome = await Promise.race([this.#queue.onIdle().then(() => 'idle' as const), expired]);
    clearTimeout(timer);
    if (outcome === 'expired') {
      const left = this.#queue.size;
      this.#queue.clear();
      for (const settle of [...this.#unsettled]) settle(false);
      this.#dropped += left;
      if (left > 0) this.#log.warn({ dropped: left }, 'Dropped events still pending at stop');
      await this.#queue.onIdle();
    }
  }
}

/** Collects events in memory (unit tests, simulator). */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: { object: string; type: EventType; reason: string; message: string }[] = [];

  event(obj: KubernetesObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object: `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, type, reason, message });
  }
}
