/**
 * The one test {@linkcode Clock}: time moves only when the test (or, in auto-advance mode, a sleep)
 * moves it, so 30-second backoffs, 5-minute watch timeouts and the loop's resync timer run
 * instantly and deterministically, and no test sleeps for real.
 *
 * How to drive it:
 * - **In-memory code that sleeps** (the reflector, the loop): `await clock.advance(ms)` fires the
 *   sleeps that fall due one at a time, soonest first, and lets the code each one wakes run
 *   (including sleeps it starts that fall due within the same window). {@linkcode settle} is the
 *   barrier it uses between steps; `clock.pending()` says which sleeps are still waiting.
 * - **Code that only reads `now()`** (throttles, hold-off windows, token refresh), or a test that
 *   awaits the woken work itself (a request deadline): `clock.advanceSync(ms)` moves time and
 *   wakes due sleeps without waiting for anything, so it costs no event-loop turn.
 * - **Code whose pauses should cost nothing** (retry pauses, rebind back-off):
 *   `new FakeClock({ autoAdvance: true })` resolves every sleep at once and moves time by its
 *   length.
 *
 * In every mode `clock.sleeps` records each sleep asked for (milliseconds, in order); a sleep
 * whose signal is already aborted resolves `false` and is not recorded.
 *
 * @module
 */

import type { Clock } from "../../lib/util/clock.ts";

/**
 * Lets every pending promise continuation run. In-memory tests do no I/O, so one macrotask turn
 * drains the whole microtask queue: this is a barrier, not a guess at how long something takes.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Options for {@linkcode FakeClock}. */
export interface FakeClockOptions {
  /** What `now()` returns before time moves (default 1,000,000 ms). */
  readonly start?: number;
  /**
   * When true, a sleep resolves `true` at once and moves time forward by its length, so pauses
   * are recorded but never wait (default false: sleeps wait for the test to advance time).
   */
  readonly autoAdvance?: boolean;
}

interface Sleeper {
  readonly due: number;
  readonly wake: (passed: boolean) => void;
}

/** A {@linkcode Clock} whose time the test moves; see the module doc for how to drive it. */
export class FakeClock implements Clock {
  #now: number;
  readonly #autoAdvance: boolean;
  readonly #sleepers = new Set<Sleeper>();
  /** Every sleep asked for, in order (milliseconds asked for). */
  readonly sleeps: number[] = [];

  /** Starts at `options.start` (default 1,000,000 ms), sleeps waiting unless `autoAdvance`. */
  constructor(options: FakeClockOptions = {}) {
    this.#now = options.start ?? 1_000_000;
    this.#autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    this.sleeps.push(ms);
    if (this.#autoAdvance) {
      this.#now += Math.max(0, ms);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        due: this.#now + Math.max(0, ms),
        wake: (passed) => {
          this.#sleepers.delete(sleeper);
          signal?.removeEventListener("abort", onAbort);
          resolve(passed);
        },
      };
      const onAbort = () => sleeper.wake(false);
      this.#sleepers.add(sleeper);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Remaining milliseconds of every sleep still waiting, soonest first (its length is how many wait). */
  pending(): number[] {
    return [...this.#sleepers].map((sleeper) => sleeper.due - this.#now).sort((a, b) => a - b);
  }

  /**
   * Moves time forward by `ms`, waking due sleeps one at a time, soonest first, and letting the
   * code each one wakes run (including sleeps it starts that fall due within the window).
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    while (true) {
      const due = this.#due(end)[0];
      if (due === undefined) break;
      this.#now = Math.max(this.#now, due.due);
      due.wake(true);
      await settle();
    }
    this.#now = end;
    await settle();
  }

  /**
   * Moves time forward by `ms` at once and wakes every sleep now due, soonest first, without
   * waiting for the code they wake: for tests that only read `now()` or await that code themselves.
   */
  advanceSync(ms: number): void {
    this.#now += ms;
    for (const sleeper of this.#due(this.#now)) sleeper.wake(true);
  }

  /** The sleeps due by `time`, soonest first (ties in the order they were asked for). */
  #due(time: number): Sleeper[] {
    return [...this.#sleepers].filter((sleeper) => sleeper.due <= time).sort((a, b) => a.due - b.due);
  }
}
