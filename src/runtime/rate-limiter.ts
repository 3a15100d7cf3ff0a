// Requeue delays with client-go's semantics: per-item exponential backoff on failure (reset by
// forget), combined with a global token bucket so a storm of failures cannot hammer the API server.

export interface RateLimiter {
  /** Delay (ms) before `key` may be processed again; each call counts as one more failure. */
  when(key: string): number;
  forget(key: string): void;
  /** Failures recorded for `key` since the last forget. */
  retries(key: string): number;
}

/** base·2^failures, capped at max (client-go: 5 ms .. 1000 s). */
export class ExponentialFailureRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2^n overflows to Infinity long after the cap; Math.min keeps it finite.
    return Math.min(this.#baseMs * 2 ** n, this.#maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** A token bucket shared by all keys (client-go: 10 qps, burst 100); returns the wait for the next token. */
export class BucketRateLimiter implements RateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(qps = 10, burst = 100, now: () => number = () => performance.now()) {
    this.#qps = qps;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  when(_key: string): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    // Reserve a token even if it is in the future, like golang.org/x/time/rate's Reserve().
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(_key: string): void {
    // The bucket is global; nothing per key.
  }

  retries(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  retries(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.retries(key)));
  }
}

export interface ControllerRateLimiterOptions {
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly qps?: number;
  readonly burst?: number;
}

/** client-go's DefaultControllerRateLimiter, with our defaults (max backoff 5 min rather than 16 min). */
export function defaultControllerRateLimiter(opts: ControllerRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialFailureRateLimiter(opts.baseDelayMs ?? 5, opts.maxDelayMs ?? 300_000),
    new BucketRateLimiter(opts.qps ?? 10, opts.burst ?? 100),
  );
}
