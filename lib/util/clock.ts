/**
 * Time as a dependency: code that waits or timestamps takes a {@linkcode Clock}, so tests can
 * drive it without sleeping.
 *
 * Effects: {@linkcode systemClock} reads `performance.now()` and sets timers.
 *
 * @module
 */

/** The two things long-running code needs from time. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences are meaningful. */
  now(): number;
  /** Waits `ms`: `true` when the time passed, `false` once `signal` aborts; never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/** The longest delay `setTimeout` honours (~24.8 days); longer ones would fire after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** The real clock: `performance.now()` and timers (delays beyond the timer limit are capped). */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};
