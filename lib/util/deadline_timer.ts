/**
 * Drives a {@linkcode DeadlineWheel} from a clock: one sleep per tick while deadlines wait, none
 * while the wheel is empty. The action is given once, so adding a deadline allocates no closure.
 *
 * Effects: sleeps through the injected clock and calls the action for each expired item.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { type DeadlineEntry, DeadlineWheel } from "./deadline_wheel.ts";

/** Options for {@linkcode DeadlineTimer}. */
export interface DeadlineTimerOptions<T> {
  /** Precision: deadlines fire between 0 and one tick late. */
  readonly tickMs: number;
  /** Called with each item whose deadline passed. Must not throw. */
  readonly fire: (item: T) => void;
}

/** Shared deadlines for many short-lived operations; nothing fires unless `run` is running. */
export class DeadlineTimer<T> {
  readonly #clock: Clock;
  readonly #wheel: DeadlineWheel<T>;
  readonly #fire: (item: T) => void;
  /** Wakes {@linkcode DeadlineTimer.run} when a deadline is added to an empty wheel. */
  #wake: (() => void) | undefined;

  /** Creates a timer; see {@linkcode DeadlineTimerOptions}. */
  constructor(clock: Clock, options: DeadlineTimerOptions<T>) {
    this.#clock = clock;
    this.#wheel = new DeadlineWheel(options.tickMs);
    this.#fire = options.fire;
  }

  /** Deadlines waiting. */
  get size(): number {
    return this.#wheel.size;
  }

  /** Fires `item` once `afterMs` have passed, unless cancelled first. */
  add(afterMs: number, item: T): DeadlineEntry<T> {
    const entry = this.#wheel.add(this.#clock.now() + afterMs, item);
    const wake = this.#wake;
    if (wake !== undefined) {
      this.#wake = undefined;
      wake();
    }
    return entry;
  }

  /** Stops an entry from firing (nothing happens if it fired already). */
  cancel(entry: DeadlineEntry<T>): void {
    this.#wheel.cancel(entry);
  }

  /** Ticks until the signal aborts; deadlines still waiting then never fire. */
  async run(signal: AbortSignal): Promise<void> {
    const tick = this.#wheel.tick;
    while (!signal.aborted) {
      if (this.#wheel.size === 0) {
        await this.#idle(signal);
        continue;
      }
      if (!await this.#clock.sleep(tick, signal)) return;
      this.#wheel.expire(this.#clock.now(), this.#fire);
    }
  }

  #idle(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#wake = undefined;
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
