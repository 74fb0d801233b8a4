/**
 * Waiting in tests without guessing: poll a condition until a deadline, then fail with a
 * message that says what never happened.
 *
 * @module
 */

/** Options for {@linkcode waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Pause between polls (default 10 ms). */
  readonly intervalMs?: number;
}

/**
 * Polls `check` until it returns a value other than `undefined`/`false`, and returns that value.
 * Rejects with `what` in the message when the deadline passes.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = performance.now() + (options.timeoutMs ?? 10_000);
  const interval = options.intervalMs ?? 10;
  while (true) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
