// What the operator's objects do not keep: a job's worker count, CPU and progress over time. Each job
// has a bounded ring of samples in memory, appended when one of them changes; a page reload reads it
// again, a restart of the dashboard loses it (the job's events and status remain in the cluster).
import type { Sample } from './types.ts';

export class Ring<T> {
  readonly #items: T[] = [];
  #start = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    if (!(capacity >= 1)) throw new Error(`ring capacity must be at least 1, got ${capacity}`);
  }

  push(item: T): void {
    if (this.#items.length < this.capacity) this.#items.push(item);
    else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.capacity;
    }
  }

  get size(): number {
    return this.#items.length;
  }

  last(): T | undefined {
    if (this.#items.length === 0) return undefined;
    return this.#items[(this.#start + this.#items.length - 1) % this.#items.length];
  }

  /** Oldest first. */
  toArray(): T[] {
    return [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)];
  }
}

export type Reading = Omit<Sample, 't' | 'stepRate'> & { readonly measuredRate: number | undefined };

function sameReading(a: Sample, b: Reading): boolean {
  return a.workers === b.workers && a.cpu === b.cpu && a.step === b.step && a.metric === b.metric;
}

/** The step rate between two samples, when the job reports steps and they advanced. */
function rateBetween(prev: Sample | undefined, t: number, step: number | undefined): number | undefined {
  if (prev?.step === undefined || step === undefined || t <= prev.t || step < prev.step) return undefined;
  return ((step - prev.step) * 1000) / (t - prev.t);
}

export class JobHistories {
  readonly #rings = new Map<string, { readonly since: number; readonly ring: Ring<Sample> }>();

  readonly samplesPerJob: number;

  constructor(samplesPerJob: number) {
    this.samplesPerJob = samplesPerJob;
  }

  /** Records `reading` at `t` when it differs from the job's last sample; returns whether it did. */
  record(job: string, t: number, reading: Reading): boolean {
    let entry = this.#rings.get(job);
    if (entry === undefined) {
      entry = { since: t, ring: new Ring<Sample>(this.samplesPerJob) };
      this.#rings.set(job, entry);
    }
    const prev = entry.ring.last();
    if (prev !== undefined && sameReading(prev, reading)) return false;
    const stepRate = reading.measuredRate ?? rateBetween(prev, t, reading.step);
    entry.ring.push({ t, workers: reading.workers, cpu: reading.cpu, step: reading.step, metric: reading.metric, stepRate });
    return true;
  }

  samples(job: string): { since: number | undefined; samples: Sample[] } {
    const entry = this.#rings.get(job);
    return { since: entry?.since, samples: entry?.ring.toArray() ?? [] };
  }

  forget(job: string): void {
    this.#rings.delete(job);
  }

  get jobs(): number {
    return this.#rings.size;
  }
}
