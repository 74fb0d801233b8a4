/**
 * A {@linkcode Clock} whose time moves only when the test advances it, so 30-second backoffs,
 * 5-minute watch timeouts and the loop's resync timer run instantly and deterministically.
 *
 * @module
 */

import type { Clock } from "../../lib/util/clock.ts";

interface Timer {
  readonly at: number;
  readonly ms: number;
  readonly resolve: (passed: boolean) => void;
}

/**
 * Lets every pending promise continuation run. In-memory tests do no I/O, so one macrotask turn
 * drains the whole microtask queue: this is a barrier, not a guess at how long something takes.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Virtual time starting at 1,000,000 ms. */
export class VirtualClock implements Clock {
  #now = 1_000_000;
  readonly #timers = new Set<Timer>();
  /** Every sleep requested, in order (milliseconds asked for). */
  readonly sleeps: number[] = [];

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    this.sleeps.push(ms);
    return new Promise((resolve) => {
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        ms,
        resolve: (passed) => {
          this.#timers.delete(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(passed);
        },
      };
      const onAbort = () => timer.resolve(false);
      this.#timers.add(timer);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Remaining milliseconds of every pending sleep, soonest first. */
  pending(): number[] {
    return [...this.#timers].map((timer) => timer.at - this.#now).sort((a, b) => a - b);
  }

  /**
   * Moves time forward by `ms`, firing due timers one at a time in order and letting the code
   * they wake run (including timers it starts that fall due within the window).
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    while (true) {
      const due = [...this.#timers].filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#now = Math.max(this.#now, due.at);
      due.resolve(true);
      await settle();
    }
    this.#now = end;
    await settle();
  }
}
