/**
 * Waiting on the API server for a state with a deadline: ask, and until the answer is the one
 * waited for, ask again every interval. The uninstall hooks wait this way (a Deployment's pods
 * gone, a DaemonSet deleted or rolled out), where no watch is worth opening for one question.
 *
 * Effects: only what `attempt` does, and the clock's sleeps. Decisions: a failed attempt is not
 * the end (the API server may be restarting) but its message becomes the reason the wait goes
 * on; the last attempt always comes at the deadline, so a slow interval cannot hide a state
 * reached just before it; only `signal` makes it reject.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { errorMessage } from "./error_message.ts";

/** The clock, the abort signal, the deadline and the pace of one wait. */
export interface PollOptions {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

/** What one attempt found: the value that ends the wait, or why it goes on. */
export type PollAttempt<T> = { readonly value: T } | { readonly waiting: string };

/** How a wait ended: the value, or the last reason it went on when the deadline passed. */
export type PollOutcome<T> = { readonly value: T } | { readonly timedOut: string };

/** Calls `attempt` until it gives a value or the deadline passes; rejects only when aborted. */
export async function pollUntil<T>(
  options: PollOptions,
  attempt: () => Promise<PollAttempt<T>>,
): Promise<PollOutcome<T>> {
  const { clock, signal } = options;
  const deadline = clock.now() + options.timeoutMs;
  for (;;) {
    let why: string;
    try {
      const found = await attempt();
      if ("value" in found) return found;
      why = found.waiting;
    } catch (error) {
      signal.throwIfAborted();
      why = errorMessage(error);
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) return { timedOut: why };
    if (!await clock.sleep(Math.min(options.intervalMs, remaining), signal)) signal.throwIfAborted();
  }
}
