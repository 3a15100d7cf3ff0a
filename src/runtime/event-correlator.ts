// What client-go's EventCorrelator does before an event is written, so one object can never flood
// the API server with events (a job waiting for hours, a crash-looping replica):
//
// - Aggregation: events of one object with the same type and reason but different messages are
//   counted per ten-minute window; from the tenth distinct message on they become one series,
//   "(combined from similar events): <message>", instead of one event object each.
// - Spam filter: a token bucket per object, 25 new events at once and then one every five minutes.
//   Events beyond it are not written. Unlike client-go, a repeat that only raises an existing
//   event's count spends nothing, and routine events (pods and services created or deleted) have a
//   bucket of their own (see KubeEventRecorder).
//
// Pure: the clock is an argument, state is bounded (least recently used objects are forgotten).

/** client-go's defaults (tools/record): burst 25, refill one token per 300 s. */
export const SPAM_BURST = 25;
export const SPAM_REFILL_MS = 300_000;
/** client-go's defaults: 10 similar events within 10 minutes are aggregated. */
export const AGGREGATE_MAX_SIMILAR = 10;
export const AGGREGATE_WINDOW_MS = 600_000;
/** Objects remembered (client-go's LRU caches hold 4096 entries). */
const MAX_TRACKED = 4096;

export const COMBINED_PREFIX = '(combined from similar events): ';

/** A Map used as a bounded LRU cache: get moves an entry to the back, set evicts from the front. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.#map.delete(key);
    if (this.#map.size >= this.#max) {
      const oldest = this.#map.keys().next().value;
      if (oldest !== undefined) this.#map.delete(oldest);
    }
    this.#map.set(key, value);
  }
}

export class EventSpamFilter {
  readonly #buckets: Lru<{ tokens: number; at: number }>;
  readonly #burst: number;
  readonly #refillMs: number;

  constructor(opts: { burst?: number; refillMs?: number; maxTracked?: number } = {}) {
    this.#burst = opts.burst ?? SPAM_BURST;
    this.#refillMs = opts.refillMs ?? SPAM_REFILL_MS;
    this.#buckets = new Lru(opts.maxTracked ?? MAX_TRACKED);
  }

  /** Takes a token for an event about `object` (its UID); false = filtered out. */
  allow(object: string, now: number): boolean {
    const b = this.#buckets.get(object) ?? { tokens: this.#burst, at: now };
    const refilled = Math.min(this.#burst, b.tokens + Math.max(0, now - b.at) / this.#refillMs);
    const ok = refilled >= 1;
    this.#buckets.set(object, { tokens: ok ? refilled - 1 : refilled, at: now });
    return ok;
  }
}

export interface Aggregated {
  /** The message to write. */
  readonly message: string;
  /** Identifies the series this event belongs to (its repeats update one event object). */
  readonly seriesKey: string;
}

export class EventAggregator {
  readonly #records: Lru<{ messages: Set<string>; last: number }>;
  readonly #maxSimilar: number;
  readonly #windowMs: number;

  constructor(opts: { maxSimilar?: number; windowMs?: number; maxTracked?: number } = {}) {
    this.#maxSimilar = opts.maxSimilar ?? AGGREGATE_MAX_SIMILAR;
    this.#windowMs = opts.windowMs ?? AGGREGATE_WINDOW_MS;
    this.#records = new Lru(opts.maxTracked ?? MAX_TRACKED);
  }

  aggregate(object: string, type: string, reason: string, message: string, now: number): Aggregated {
    const key = `${object}\u0000${type}\u0000${reason}`;
    let record = this.#records.get(key);
    if (record === undefined || now - record.last > this.#windowMs) record = { messages: new Set(), last: now };
    record.messages.add(message);
    record.last = now;
    this.#records.set(key, record);
    if (record.messages.size < this.#maxSimilar) return { message, seriesKey: `${key}\u0000${message}` };
    return { message: `${COMBINED_PREFIX}${message}`, seriesKey: `${key}\u0000${COMBINED_PREFIX}` };
  }
}
