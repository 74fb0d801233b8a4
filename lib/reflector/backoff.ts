/**
 * Exponential backoff with full jitter that forgets old failures after a healthy spell, so a
 * restarted API server is not hit by every reflector at once (client-go and kube-rs defaults).
 *
 * Pure apart from the injected clock and random source.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Tuning for {@linkcode Backoff}; defaults in {@linkcode DEFAULT_BACKOFF}. */
export interface BackoffOptions {
  /** Ceiling of the first delay. */
  readonly initialMs?: number;
  /** Largest ceiling. */
  readonly maxMs?: number;
  /** Growth of the ceiling per consecutive failure. */
  readonly factor?: number;
  /** A failure this long after the last retry started counts as the first again. */
  readonly resetAfterMs?: number;
  /** Cap on an honoured `Retry-After`, so a wild value cannot park a reflector for hours. */
  readonly maxRetryAfterMs?: number;
}

/** The defaults (client-go's and kube-rs'). */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  resetAfterMs: 120_000,
  maxRetryAfterMs: 300_000,
};

/** Ceiling of the `attempt`-th failure in a row (0-based): `initialMs × factor^attempt`, capped. */
export function backoffCeilingMs(attempt: number, options: BackoffOptions = {}): number {
  const { initialMs, maxMs, factor } = { ...DEFAULT_BACKOFF, ...options };
  return Math.min(maxMs, initialMs * factor ** attempt);
}

/**
 * Draws retry delays, uniform in [0, ceiling) so replicas that failed together retry apart; the
 * ceiling grows per failure in a row and starts over after `resetAfterMs` without one.
 */
export class Backoff {
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #options: Required<BackoffOptions>;
  #attempt = 0;
  /** When the retry delayed by the last drawn delay starts. */
  #retryAt: number | undefined;

  /** `random` returns numbers in [0, 1), like `Math.random`. */
  constructor(clock: Clock, random: () => number, options: BackoffOptions = {}) {
    this.#clock = clock;
    this.#random = random;
    this.#options = { ...DEFAULT_BACKOFF, ...options };
  }

  /** Consecutive failures counted so far (0 after a reset). */
  get attempt(): number {
    return this.#attempt;
  }

  /** Records a failure; returns the wait in ms, at least `minimumMs` (a 429's `Retry-After`). */
  next(minimumMs?: number): number {
    const now = this.#clock.now();
    if (this.#retryAt !== undefined && now - this.#retryAt >= this.#options.resetAfterMs) this.#attempt = 0;
    const ceiling = backoffCeilingMs(this.#attempt, this.#options);
    this.#attempt += 1;
    const jittered = ceiling * this.#random();
    const floor = minimumMs === undefined ? 0 : Math.min(minimumMs, this.#options.maxRetryAfterMs);
    const delay = Math.max(jittered, floor);
    this.#retryAt = now + delay;
    return delay;
  }

  /** Forgets earlier failures now (the next delay is drawn from `initialMs`). */
  reset(): void {
    this.#attempt = 0;
    this.#retryAt = undefined;
  }
}
