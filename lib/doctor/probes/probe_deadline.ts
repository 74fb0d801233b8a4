/**
 * The deadline of one probe: its own time-out or the check's signal, whichever fires first, and
 * which of the two it was.
 *
 * Effects: one timer, cleared on dispose.
 *
 * @module
 */

import type { ProbeFailure, ProbePhase } from "./probe_failure.ts";

/** A running probe deadline. */
export interface ProbeDeadline extends Disposable {
  readonly signal: AbortSignal;
  /** The failure to report for a probe stopped by this deadline in `phase`. */
  failure(phase: ProbePhase): ProbeFailure;
}

/** Starts a deadline of `timeoutMs` that also follows `signal`. */
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
 * Settles as `work` does, or rejects when `signal` aborts: for socket calls that take no signal
 * (the caller closes the socket on abort).
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
