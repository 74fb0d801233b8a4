/**
 * A per-key rate limit for repetitive log lines: when a backend is down every connection fails the
 * same way, and one WARN per interval with a count of the rest says as much as thousands.
 *
 * Pure apart from the injected clock.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

/** Decision for one event. */
export type ThrottleDecision = { readonly emit: true; readonly suppressed: number } | {
  readonly emit: false;
};

/** Lets the first event per key through, then one per interval, counting those held back. */
export class Throttle {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #state = new Map<string, { last: number; suppressed: number }>();

  /** Creates a limiter allowing one event per key per `intervalMs`. */
  constructor(clock: Clock, intervalMs: number) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Records an event for `key` and says whether to emit it. */
  check(key: string): ThrottleDecision {
    const now = this.#clock.now();
    const entry = this.#state.get(key);
    if (entry === undefined || now - entry.last >= this.#intervalMs) {
      const suppressed = entry?.suppressed ?? 0;
      this.#state.set(key, { last: now, suppressed: 0 });
      return { emit: true, suppressed };
    }
    entry.suppressed += 1;
    return { emit: false };
  }
}
