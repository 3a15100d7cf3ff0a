import { describe, expect, it } from 'vitest';
import {
  AGGREGATE_WINDOW_MS,
  COMBINED_PREFIX,
  EventAggregator,
  EventSpamFilter,
  SPAM_BURST,
  SPAM_REFILL_MS,
} from '../../../src/runtime/event-correlator.ts';

const T0 = 1_000_000;

describe('event spam filter (client-go: 25 per object, then one per 5 minutes)', () => {
  it('lets 25 events of one object through at once, then one per refill period', () => {
    const f = new EventSpamFilter();
    const allowed = Array.from({ length: 40 }, () => f.allow('job-a', T0)).filter(Boolean).length;
    expect(allowed).toBe(SPAM_BURST);
    expect(f.allow('job-a', T0 + SPAM_REFILL_MS / 2)).toBe(false);
    expect(f.allow('job-a', T0 + SPAM_REFILL_MS)).toBe(true);
    expect(f.allow('job-a', T0 + SPAM_REFILL_MS + 1)).toBe(false);
  });

  it('keeps a bucket per object, and refills to at most the burst', () => {
    const f = new EventSpamFilter({ burst: 2, refillMs: 1_000 });
    expect([f.allow('a', T0), f.allow('a', T0), f.allow('a', T0)]).toEqual([true, true, false]);
    expect(f.allow('b', T0)).toBe(true);
    const later = T0 + 1_000_000;
    expect([f.allow('a', later), f.allow('a', later), f.allow('a', later)]).toEqual([true, true, false]);
  });

  it('forgets the least recently used objects beyond its size (a forgotten object starts full again)', () => {
    const f = new EventSpamFilter({ burst: 1, refillMs: 1e9, maxTracked: 2 });
    expect(f.allow('a', T0)).toBe(true);
    expect(f.allow('b', T0)).toBe(true);
    expect(f.allow('a', T0)).toBe(false);
    expect(f.allow('c', T0)).toBe(true); // evicts b, the least recently used
    expect(f.allow('a', T0)).toBe(false);
    expect(f.allow('b', T0)).toBe(true);
  });
});

describe('event aggregation (client-go: 10 similar events in 10 minutes become one series)', () => {
  it('keeps distinct messages apart up to nine, then combines them into one series', () => {
    const agg = new EventAggregator();
    const out = Array.from({ length: 12 }, (_, i) => agg.aggregate('job-a', 'Normal', 'Waiting', `needs ${i} cpu`, T0 + i));
    expect(new Set(out.slice(0, 9).map((o) => o.seriesKey)).size).toBe(9);
    expect(out.slice(0, 9).every((o, i) => o.message === `needs ${i} cpu`)).toBe(true);
    expect(out[9]?.message).toBe(`${COMBINED_PREFIX}needs 9 cpu`);
    expect(new Set(out.slice(9).map((o) => o.seriesKey)).size).toBe(1);
  });

  it('aggregates per object, type and reason, and starts over after a quiet window', () => {
    const agg = new EventAggregator({ maxSimilar: 2 });
    expect(agg.aggregate('a', 'Normal', 'Waiting', 'm1', T0).message).toBe('m1');
    expect(agg.aggregate('a', 'Normal', 'Admitted', 'm2', T0).message).toBe('m2');
    expect(agg.aggregate('b', 'Normal', 'Waiting', 'm2', T0).message).toBe('m2');
    expect(agg.aggregate('a', 'Normal', 'Waiting', 'm2', T0).message).toBe(`${COMBINED_PREFIX}m2`);
    expect(agg.aggregate('a', 'Normal', 'Waiting', 'm3', T0 + AGGREGATE_WINDOW_MS + 1).message).toBe('m3');
  });

  it('does not count a repeated message twice', () => {
    const agg = new EventAggregator({ maxSimilar: 2 });
    for (let i = 0; i < 5; i++) expect(agg.aggregate('a', 'Normal', 'Waiting', 'same', T0 + i).message).toBe('same');
  });
});
