/**
 * A clock the test moves by hand: `now()` is a number the test sets, and sleeps resolve only
 * when {@linkcode ManualClock.advance} passes their due time (or their signal aborts).
 *
 * @module
 */

import type { Clock } from "../../lib/util/clock.ts";

interface Sleeper {
  readonly due: number;
  readonly resolve: (passed: boolean) => void;
}

/** A {@linkcode Clock} driven by the test. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  /** Starts at `start` milliseconds. */
  constructor(start = 1_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        due: this.#now + ms,
        resolve: (passed) => {
          signal?.removeEventListener("abort", onAbort);
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          resolve(passed);
        },
      };
      const onAbort = () => sleeper.resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** How many sleeps are waiting. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward, waking every sleep that is now due. */
  advance(ms: number): void {
    this.#now += ms;
    for (const sleeper of [...this.#sleepers]) if (sleeper.due <= this.#now) sleeper.resolve(true);
  }
}
