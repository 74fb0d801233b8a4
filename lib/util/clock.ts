/**
 * Time as a dependency: code that waits or timestamps takes a {@linkcode Clock}, so tests can
 * drive it without sleeping.
 *
 * @module
 */

/** The two things long-running code needs from time. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences are meaningful. */
  now(): number;
  /**
   * Waits `ms` milliseconds. Resolves `true` when the time passed and `false` as soon as the
   * signal aborts; never rejects.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/** The real clock: `performance.now()` and timers. */
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
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
};
