import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from '../../../src/runtime/workqueue.ts';
import { BucketRateLimiter, ExponentialFailureRateLimiter, MaxOfRateLimiter } from '../../../src/runtime/rate-limiter.ts';

describe('WorkQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const queue = () => new WorkQueue({ now: () => Date.now(), rateLimiter: new ExponentialFailureRateLimiter(5, 1_000) });

  it('deduplicates keys that are added while queued', async () => {
    const q = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('never hands a key to two workers; a key dirtied during processing is processed again after done', async () => {
    const q = queue();
    q.add('a');
    const first = await q.get();
    expect(first).toBe('a');
    q.add('a');
    q.add('a');
    // While 'a' is in flight it is not available to a second worker.
    expect(q.length).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done('a');
    await Promise.resolve();
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('a key processed without being re-added is not requeued', async () => {
    const q = queue();
    q.add('a');
    q.done((await q.get())!);
    expect(q.length).toBe(0);
    expect(q.processing).toBe(0);
  });

  it('delays with addAfter and the earliest requested time wins', async () => {
    const q = queue();
    q.addAfter('a', 1_000);
    q.addAfter('a', 300);
    q.addAfter('a', 2_000);
    expect(q.length).toBe(0);
    expect(q.delayed).toBe(1);
    vi.advanceTimersByTime(299);
    expect(q.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
    q.done('a');
    vi.advanceTimersByTime(5_000);
    expect(q.length).toBe(0);
  });

  it('backs off exponentially per key on failure, capped, and forget resets it', () => {
    const limiter = new ExponentialFailureRateLimiter(5, 100);
    expect([1, 2, 3, 4, 5, 6].map(() => limiter.when('k'))).toEqual([5, 10, 20, 40, 80, 100]);
    expect(limiter.when('other')).toBe(5);
    expect(limiter.retries('k')).toBe(6);
    limiter.forget('k');
    expect(limiter.when('k')).toBe(5);
  });

  it('requeues a failed key after its backoff (requeue-on-failure)', async () => {
    const q = queue();
    q.add('job');
    let key = (await q.get())!;
    q.addRateLimited(key); // first failure: 5 ms
    q.done(key);
    expect(q.length).toBe(0);
    vi.advanceTimersByTime(5);
    key = (await q.get())!;
    q.addRateLimited(key); // second failure: 10 ms
    q.done(key);
    vi.advanceTimersByTime(9);
    expect(q.length).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.length).toBe(1);
    expect(q.numRequeues('job')).toBe(2);
    q.forget('job');
    expect(q.numRequeues('job')).toBe(0);
  });

  it('limits the global rate with a token bucket', () => {
    let now = 0;
    const bucket = new BucketRateLimiter(10, 2, () => now);
    expect(bucket.when('a')).toBe(0);
    expect(bucket.when('b')).toBe(0);
    expect(bucket.when('c')).toBeCloseTo(100);
    expect(bucket.when('d')).toBeCloseTo(200);
    now = 1_000;
    expect(bucket.when('e')).toBe(0);
    const combined = new MaxOfRateLimiter(new ExponentialFailureRateLimiter(5, 1_000), new BucketRateLimiter(1, 1, () => now));
    expect(combined.when('x')).toBe(5);
    expect(combined.when('x')).toBeCloseTo(1_000);
  });

  it('shutdown releases waiting workers and drain waits for in-flight keys', async () => {
    const q = queue();
    q.add('a');
    const a = (await q.get())!;
    const waiting = q.get();
    let drained = false;
    const drain = q.shutdownWithDrain().then(() => (drained = true));
    expect(await waiting).toBeUndefined();
    await Promise.resolve();
    expect(drained).toBe(false);
    q.add('b');
    expect(q.length).toBe(0);
    q.done(a);
    await drain;
    expect(drained).toBe(true);
    expect(await q.get()).toBeUndefined();
  });

  it('reports queue wait and work durations to its observer', async () => {
    const events: string[] = [];
    const q = new WorkQueue({
      now: () => Date.now(),
      observer: {
        added: (k) => events.push(`added ${k}`),
        started: (k, ms) => events.push(`started ${k} after ${ms}`),
        finished: (k, ms) => events.push(`finished ${k} in ${ms}`),
      },
    });
    q.add('a');
    vi.advanceTimersByTime(40);
    const k = (await q.get())!;
    vi.advanceTimersByTime(15);
    expect(q.longestRunningProcessorSeconds()).toBeCloseTo(0.015);
    q.done(k);
    expect(events).toEqual(['added a', 'started a after 40', 'finished a in 15']);
  });
});
