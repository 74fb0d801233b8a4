/**
 * Runs a call with a signal of its own that outlives the caller's by a grace period, so shutdown
 * lets a started sink call finish. A sink checks its signal before each write and a single PUT is
 * atomic, so the worst a shutdown can do is abandon a write before it starts.
 *
 * Effects: a timer through the injected clock once the caller's signal aborts.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Options for {@linkcode withShutdownGrace}. */
export interface ShutdownGraceOptions {
  readonly signal: AbortSignal;
  /** How long the call may go on after `signal` aborts before its own signal aborts. */
  readonly graceMs: number;
  readonly clock: Clock;
  /** Called when the grace period runs out with the call still going, before its signal aborts. */
  readonly onAbandon?: () => void;
}

/** Calls `call` with a signal of its own, which aborts `graceMs` after `options.signal` does. */
export async function withShutdownGrace<T>(
  call: (signal: AbortSignal) => Promise<T>,
  options: ShutdownGraceOptions,
): Promise<T> {
  const { signal, graceMs, clock } = options;
  const own = new AbortController();
  const finished = new AbortController();
  const onAbort = () => {
    void clock.sleep(graceMs, finished.signal).then((expired) => {
      if (!expired) return;
      options.onAbandon?.();
      own.abort(new DOMException("shutdown grace period passed", "AbortError"));
    });
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await call(own.signal);
  } finally {
    signal.removeEventListener("abort", onAbort);
    finished.abort();
  }
}
