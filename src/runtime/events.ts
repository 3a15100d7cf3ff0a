// Kubernetes Events through the events.k8s.io/v1 API (kubectl describe shows them under the object).
// Recording never fails a reconcile: writes are asynchronous, bounded, and errors are only logged.
// A repeat of the same event (object, type, reason, message) within ten minutes updates the existing
// event's series count instead of creating another object, like client-go's EventCorrelator.
import { EventsV1Api, PatchStrategy, setHeaderOptions, V1MicroTime, type KubernetesObject, type V1ObjectReference } from '@kubernetes/client-node';
import PQueue from 'p-queue';
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
}

const SERIES_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 4096;
const MAX_MESSAGE = 1024;

export class KubeEventRecorder implements EventRecorder {
  readonly #api: EventsV1Api;
  readonly #controller: string;
  readonly #instance: string;
  readonly #log: Logger;
  readonly #queue = new PQueue({ concurrency: 4 });
  readonly #series = new Map<string, SeriesEntry>();
  #seq = 0;

  constructor(clients: KubeClients, opts: { controller: string; instance: string; logger: Logger }) {
    this.#api = clients.api(EventsV1Api);
    this.#controller = opts.controller;
    this.#instance = opts.instance;
    this.#log = opts.logger;
  }

  event(obj: KubernetesObject, type: EventType, reason: string, message: string, action = 'Reconcile'): void {
    const meta = obj.metadata;
    const namespace = meta?.namespace ?? 'default';
    if (meta?.name === undefined) return;
    const note = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const regarding: V1ObjectReference = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: meta.name,
      namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    };
    const key = `${meta.uid ?? `${namespace}/${meta.name}`}\u0000${type}\u0000${reason}\u0000${note}`;
    const now = Date.now();
    const existing = this.#series.get(key);
    if (existing !== undefined && now - existing.first < SERIES_WINDOW_MS) {
      existing.count += 1;
      const { name, count } = existing;
      void this.#queue.add(async () => {
        try {
          await this.#api.patchNamespacedEvent(
            { name, namespace, body: { series: { count, lastObservedTime: new V1MicroTime() } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          );
        } catch (err) {
          this.#log.debug({ err, reason }, 'Failed to update an event series');
        }
      });
      return;
    }
    const name = `${meta.name}.${now.toString(16)}${(this.#seq++ % 4096).toString(16).padStart(3, '0')}`;
    if (this.#series.size >= MAX_TRACKED) {
      const oldest = this.#series.keys().next().value;
      if (oldest !== undefined) this.#series.delete(oldest);
    }
    this.#series.set(key, { name, namespace, count: 1, first: now });
    void this.#queue.add(async () => {
      try {
        await this.#api.createNamespacedEvent({
          namespace,
          body: {
            metadata: { name, namespace },
            eventTime: new V1MicroTime(),
            reportingController: this.#controller,
            reportingInstance: this.#instance,
            action,
            reason,
            note,
            type,
            regarding,
          },
        });
      } catch (err) {
        this.#log.debug({ err, reason }, 'Failed to record an event');
      }
    });
  }

  /** Waits for queued event writes (graceful shutdown, tests). */
  async flush(): Promise<void> {
    await this.#queue.onIdle();
  }
}

/** Collects events in memory (unit tests, simulator). */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: { object: string; type: EventType; reason: string; message: string }[] = [];

  event(obj: KubernetesObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object: `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, type, reason, message });
  }
}
