/**
 * Exponential backoff with full jitter that forgets old failures after a healthy spell: the
 * retry rule for watches and lists, so an API server that restarts is not hammered by every
 * reflector at once (client-go `reflector.go` defaults; kube-rs `DefaultBackoff` wrapped in
 * `ResetTimerBackoff`).
 *
 * Pure apart from the injected clock and random source.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Tuning for {@linkcode Backoff}. Defaults are client-go's and kube-rs'. */
export interface BackoffOptions {
  /**
   * Ceiling of the first delay.
   * @default {800}
   */
  readonly initialMs?: number;
  /**
   * Largest ceiling: "stop at [30,60) sec interval which is 0.22 QPS" (client-go).
   * @default {30000}
   */
  readonly maxMs?: number;
  /**
   * Growth of the ceiling per consecutive failure.
   * @default {2}
   */
  readonly factor?: number;
  /**
   * After this long without a failure the next delay starts from `initialMs` again.
   * @default {120000}
   */
  readonly resetAfterMs?: number;
  /**
   * Longest server-requested wait (`Retry-After`) honoured, so a wild value cannot park a
   * reflector for hours.
   * @default {300000}
   */
  readonly maxRetryAfterMs?: number;
}

/** The defaults, resolved. */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  resetAfterMs: 120_000,
  maxRetryAfterMs: 300_000,
};

/**
 * The ceiling for the `attempt`-th consecutive failure (0-based): `initialMs × factor^attempt`,
 * capped at `maxMs`.
 */
export function backoffCeilingMs(attempt: number, options: BackoffOptions = {}): number {
  const { initialMs, maxMs, factor } = { ...DEFAULT_BACKOFF, ...options };
  return Math.min(maxMs, initialMs * factor ** attempt);
}

/**
 * Draws retry delays. Each delay is uniform in [0, ceiling) ("full jitter": replicas that
 * failed together retry apart), the ceiling doubles per consecutive failure up to the cap, and
 * a failure that comes `resetAfterMs` after the previous retry started counts as the first
 * again.
 *
 * @example
 * ```ts
 * import { retryAfterMs } from "../kube/errors.ts";
 * import { systemClock } from "../util/clock.ts";
 * import { Backoff } from "./backoff.ts";
 *
 * declare const error: unknown; // what the failed request threw
 * declare const signal: AbortSignal;
 * const backoff = new Backoff(systemClock, Math.random);
 * await systemClock.sleep(backoff.next(retryAfterMs(error)), signal); // at least what a 429 asked for
 * ```
 */
export class Backoff {
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #options: Required<BackoffOptions>;
  #attempt = 0;
  /** When the last drawn delay ends, i.e. when the retry it delayed starts. */
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

  /**
   * Records a failure and returns how long to wait before retrying, in milliseconds: a jittered
   * delay, raised to `minimumMs` when the server asked for at least that long (429
   * `Retry-After`).
   */
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
