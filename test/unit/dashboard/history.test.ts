// The history ring and the per-job histories: bounded, oldest first, a sample only on change, and a
// step rate from the job's own measurement or from consecutive steps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobHistories, Ring, type Reading } from '../../../src/dashboard/history.ts';

const reading = (over: Partial<Reading> = {}): Reading => ({
  workers: 2,
  cpu: 2,
  step: undefined,
  metric: undefined,
  measuredRate: undefined,
  ...over,
});

describe('Ring', () => {
  it('refuses a capacity below one', () => {
    expect(() => new Ring(0)).toThrow(/at least 1/);
    expect(() => new Ring(Number.NaN)).toThrow(/at least 1/);
  });

  it('is empty at first', () => {
    const r = new Ring<number>(3);
    expect(r.size).toBe(0);
    expect(r.last()).toBeUndefined();
    expect(r.toArray()).toEqual([]);
  });

  it('keeps the newest `capacity` items, oldest first, whatever is pushed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (capacity, items) => {
        const r = new Ring<number>(capacity);
        for (const i of items) r.push(i);
        const kept = items.slice(-capacity);
        expect(r.toArray()).toEqual(kept);
        expect(r.size).toBe(kept.length);
        expect(r.last()).toBe(kept.at(-1));
      }),
    );
  });
});

describe('JobHistories', () => {
  it('records a sample only when the reading changes', () => {
    const h = new JobHistories(10);
    expect(h.record('ns/a', 1000, reading())).toBe(true);
    expect(h.record('ns/a', 2000, reading())).toBe(false);
    expect(h.record('ns/a', 3000, reading({ workers: 1, cpu: 1 }))).toBe(true);
    expect(h.samples('ns/a').samples.map((s) => [s.t, s.workers])).toEqual([
      [1000, 2],
      [3000, 1],
    ]);
  });

  it('says since when it has samples: the first sighting of the job', () => {
    const h = new JobHistories(2);
    h.record('ns/a', 5000, reading({ workers: 1 }));
    h.record('ns/a', 6000, reading({ workers: 2 }));
    h.record('ns/a', 7000, reading({ workers: 3 }));
    const { since, samples } = h.samples('ns/a');
    expect(since).toBe(5000);
    // Bounded: the oldest sample fell out of the ring.
    expect(samples.map((s) => s.workers)).toEqual([2, 3]);
  });

  it('computes the step rate from consecutive steps when the job measures none', () => {
    const h = new JobHistories(10);
    h.record('ns/a', 0, reading({ step: 100 }));
    h.record('ns/a', 2000, reading({ step: 300 }));
    expect(h.samples('ns/a').samples.map((s) => s.stepRate)).toEqual([undefined, 100]);
  });

  it("prefers the job's measured rate", () => {
    const h = new JobHistories(10);
    h.record('ns/a', 0, reading({ step: 100 }));
    h.record('ns/a', 2000, reading({ step: 300, measuredRate: 7 }));
    expect(h.samples('ns/a').samples.at(-1)?.stepRate).toBe(7);
  });

  it('gives no rate when the step went back (a restart from a checkpoint) or no time passed', () => {
    const h = new JobHistories(10);
    h.record('ns/a', 1000, reading({ step: 500 }));
    h.record('ns/a', 2000, reading({ step: 200 }));
    h.record('ns/a', 2000, reading({ step: 300 }));
    expect(h.samples('ns/a').samples.map((s) => s.stepRate)).toEqual([undefined, undefined, undefined]);
  });

  it('keeps jobs apart and forgets a deleted one', () => {
    const h = new JobHistories(10);
    h.record('ns/a', 0, reading());
    h.record('ns/b', 0, reading({ workers: 4 }));
    expect(h.jobs).toBe(2);
    h.forget('ns/a');
    expect(h.jobs).toBe(1);
    expect(h.samples('ns/a')).toEqual({ since: undefined, samples: [] });
    expect(h.samples('ns/b').samples[0]?.workers).toBe(4);
  });
});
