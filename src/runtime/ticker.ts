// A periodic round that never overlaps itself: a tick while the last round still runs is skipped,
// the timer does not keep the process alive, a failed round is reported (never an unhandled
// rejection), and stop() waits for the round in flight so nothing writes after shutdown.
export class Ticker {
  readonly #everyMs: number;
  readonly #round: () => Promise<unknown>;
  readonly #onError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;

  constructor(everyMs: number, round: () => Promise<unknown>, onError: (err: unknown) => void) {
    this.#everyMs = everyMs;
    this.#round = round;
    this.#onError = onError;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      if (this.#running !== undefined) return;
      this.#running = this.#round()
        .catch(this.#onError)
        .finally(() => {
          this.#running = undefined;
        });
    }, this.#everyMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
