// When scheduling passes run. Cluster events request a pass; requests within the debounce window
// make one pass, so a burst of thousands of events yields a few passes. A request while a pass runs
// makes exactly one more pass after it (never two at once). A timer requests passes too, for what
// changes with time alone (starvation aging, cool-downs). A failed pass is retried after a second.
import type { Logger } from '../../../runtime/logger.ts';

export interface PassTriggerOptions {
  /** Requests within this window after the first make one pass (ms, real time). */
  readonly debounceMs: number;
  /** A pass at least this often even without events (ms, real time). */
  readonly intervalMs: number;
  /** After a failed pass, the next one is requested this much later (ms). */
  readonly retryMs?: number;
  readonly log: Logger;
}

export class PassTrigger {
  readonly #pass: () => Promise<void>;
  readonly #options: PassTriggerOptions;
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #active = false;

  constructor(pass: () => Promise<void>, options: PassTriggerOptions) {
    this.#pass = pass;
    this.#options = options;
  }

  get active(): boolean {
    return this.#active;
  }

  /** Starts the timer and requests a first pass. */
  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#timer = setInterval(
      () => {
        this.request('timer');
      },
      Math.max(50, this.#options.intervalMs),
    );
    this.#timer.unref();
    this.request('start');
  }

  /** No more passes; resolves when the one running (if any) has finished. */
  async stop(): Promise<void> {
    this.#active = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    this.#debounce = undefined;
    await this.#running;
  }

  /** Requests a pass soon; many requests within the debounce window make one pass. */
  request(why: string): void {
    if (!this.#active) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    if (this.#debounce !== undefined) return;
    this.#options.log.trace({ why }, 'Scheduling pass requested');
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#running = this.#loop().finally(() => {
        this.#running = undefined;
      });
    }, this.#options.debounceMs);
    this.#debounce.unref();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#pass();
      } catch (err) {
        this.#options.log.error({ err }, 'Scheduling pass failed; will retry');
        this.#again = false;
        setTimeout(() => {
          this.request('retry');
        }, this.#options.retryMs ?? 1_000).unref();
      }
    } while (this.#repeat());
  }

  // A method, not an inline check: both flags change while a pass awaits.
  #repeat(): boolean {
    return this.#again && this.#active;
  }
}
