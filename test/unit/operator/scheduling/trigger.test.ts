import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { PassTrigger } from '../../../../src/operator/scheduling/pass/trigger.ts';

const log = createLogger({ level: 'silent' });

describe('pass trigger', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes one pass of many requests within the debounce window', async () => {
    let passes = 0;
    const t = new PassTrigger(
      async () => {
        passes += 1;
      },
      { debounceMs: 100, intervalMs: 60_000, log },
    );
    t.start();
    for (let i = 0; i < 50; i++) t.request('event');
    await vi.advanceTimersByTimeAsync(99);
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(1);
    await t.stop();
  });

  it('runs exactly one more pass for requests that came while a pass ran, never two at once', async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    let release: () => void = () => undefined;
    const t = new PassTrigger(
      async () => {
        running += 1;
        most = Math.max(most, running);
        passes += 1;
        if (passes === 1) await new Promise<void>((r) => (release = r));
        running -= 1;
      },
      { debounceMs: 10, intervalMs: 60_000, log },
    );
    t.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(passes).toBe(1);
    t.request('a');
    t.request('b');
    t.request('c');
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(2);
    expect(most).toBe(1);
    await t.stop();
  });

  it('passes on the timer without events, and retries a failed pass', async () => {
    const results: string[] = [];
    let fail = true;
    const t = new PassTrigger(
      async () => {
        results.push(fail ? 'failed' : 'ok');
        if (fail) {
          fail = false;
          throw new Error('API down');
        }
      },
      { debounceMs: 10, intervalMs: 5_000, retryMs: 1_000, log },
    );
    t.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(results).toEqual(['failed']);
    await vi.advanceTimersByTimeAsync(1_010);
    expect(results).toEqual(['failed', 'ok']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(results).toEqual(['failed', 'ok', 'ok']);
    await t.stop();
  });

  it('makes no pass before start or after stop, and stop waits for the running pass', async () => {
    let passes = 0;
    let finished = false;
    const t = new PassTrigger(
      async () => {
        passes += 1;
        await new Promise((r) => setTimeout(r, 500));
        finished = true;
      },
      { debounceMs: 10, intervalMs: 100, log },
    );
    t.request('early');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(0);
    t.start();
    await vi.advanceTimersByTimeAsync(10);
    const stopped = t.stop();
    await vi.advanceTimersByTimeAsync(500);
    await stopped;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(1);
    expect(t.active).toBe(false);
  });
});
