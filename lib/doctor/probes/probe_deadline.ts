/**
 * The deadline of one probe: its own time-out or the check's signal, whichever fires first, and
 * which of the two it was (a probe that ran out of its own time says "timed out"; one cut off by
 * the check's `--check-timeout` says it did not finish).
 *
 * Effects: one timer, cleared on dispose.
 *
 * @module
 */

import type { ProbeFailure, ProbePhase } from "./probe_failure.ts";

/** A running probe deadline. */
export interface ProbeDeadline extends Disposable {
  /** Aborts when the probe's time is up or the check's signal fired. */
  readonly signal: AbortSignal;
  /** The failure to report for a probe stopped by this deadline in `phase`. */
  failure(phase: ProbePhase): ProbeFailure;
}

/**
 * Starts a deadline of `timeoutMs` that also follows `signal`.
 *
 * @example
 * ```ts
 * import { probeDeadline } from "./probe_deadline.ts";
 *
 * using deadline = probeDeadline(AbortSignal.timeout(20_000), 5_000);
 * deadline.failure("connect"); // { kind: "connect-timeout" } once 5 s passed
 * ```
 */
export function probeDeadline(signal: AbortSignal, timeoutMs: number): ProbeDeadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("probe timed out", "TimeoutError")),
    timeoutMs,
  );
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    failure: (phase) =>
      signal.aborted
        ? { kind: "aborted" }
        : { kind: phase === "connect" ? "connect-timeout" : "answer-timeout" },
    [Symbol.dispose]() {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Rejects with the deadline's reason when `signal` aborts, else settles as `work` does. Used
 * around socket calls that take no signal (reads, `node:tls` handshakes); the caller closes the
 * socket on abort, which ends the pending call.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
