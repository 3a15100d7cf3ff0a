import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Ticker } from '../../../src/runtime/ticker.ts';

describe('Ticker', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('skips ticks while a round still runs, and runs again once it ended', async () => {
    let started = 0;
    let finish: () => void = () => undefined;
    const ticker = new Ticker(
      1_000,
      () => {
        started++;
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
      () => undefined,
    );
    ticker.start();
    await vi.advanceTimersByTimeAsync(3_500);
    expect(started).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(2);
    finish();
    await ticker.stop();
  });

  it('reports a failed round and keeps ticking', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const ticker = new Ticker(
      1_000,
      () => {
        rounds++;
        return Promise.reject(new Error(`round ${rounds}`));
      },
      (err) => errors.push(err),
    );
    ticker.start();
    await vi.advanceTimersByTimeAsync(2_000);
    await ticker.stop();
    expect(rounds).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['round 1', 'round 2']);
  });

  it('stop waits for the round in flight and no round starts after it', async () => {
    let finish: () => void = () => undefined;
    let started = 0;
    let ended = false;
    const ticker = new Ticker(
      1_000,
      async () => {
        started++;
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        ended = true;
      },
      () => undefined,
    );
    ticker.start();
    ticker.start(); // a second start is a no-op, not a second timer
    await vi.advanceTimersByTimeAsync(1_000);
    const stopped = ticker.stop();
    let stopDone = false;
    void stopped.then(() => {
      stopDone = true;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopDone).toBe(false);
    finish();
    await stopped;
    expect(ended).toBe(true);
    expect(started).toBe(1);
  });
});
