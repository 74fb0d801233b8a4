/**
 * Runs a call with a signal of its own that outlives the caller's by a grace period, so
 * shutdown lets a started sink call finish instead of cutting it between its read and its
 * write.
 *
 * A sink checks its signal before each write, and a single PUT either reached the API server
 * whole or not at all, so the worst a shutdown can do is abandon a write before it starts: no
 * call is ever cut half-done.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Options for {@linkcode withShutdownGrace}. */
export interface ShutdownGraceOptions {
  /** The caller's signal: shutdown. */
  readonly signal: AbortSignal;
  /** How long the call may go on after `signal` aborts before its own signal aborts. */
  readonly graceMs: number;
  readonly clock: Clock;
  /** Called when the grace period runs out with the call still going, just before its signal aborts. */
  readonly onAbandon?: () => void;
}

/**
 * Calls `call` with a signal that aborts only `graceMs` after `options.signal` does (never, if
 * the call finishes first), and returns what it returns.
 *
 * @example
 * ```ts
 * import type { Sink } from "./modes/sink.ts";
 * import { systemClock } from "../util/clock.ts";
 * import { logger } from "../util/logging.ts";
 * import { withShutdownGrace } from "./with_shutdown_grace.ts";
 *
 * declare const sink: Sink;
 * declare const shutdown: AbortSignal;
 * const outcome = await withShutdownGrace((signal) => sink.reconcile(["shop.example.com"], signal), {
 *   signal: shutdown,
 *   graceMs: 10_000,
 *   clock: systemClock,
 *   onAbandon: () => logger("controller").warn("abandoning the call"),
 * });
 * ```
 */
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
