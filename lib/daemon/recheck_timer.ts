/**
 * The timer that calls the sink again when a hold-off it asked for (`recheckAfterMs`) ends; a
 * later hold-off replaces an earlier one.
 *
 * Effects: timers through the injected clock.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** One pending "call the sink again at the end of the hold-off"; scheduling again replaces it. */
export class RecheckTimer {
  readonly #clock: Clock;
  #current: { readonly cancel: AbortController; readonly done: Promise<void> } | undefined;

  /** No timer runs until {@linkcode schedule}. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `fire` after `afterMs` unless `signal` aborts or another schedule replaces it first. */
  schedule(afterMs: number, on: { readonly signal: AbortSignal; readonly fire: () => void }): void {
    this.#current?.cancel.abort();
    const cancel = new AbortController();
    const done = this.#clock.sleep(afterMs, AbortSignal.any([on.signal, cancel.signal])).then((slept) => {
      if (slept) on.fire();
    });
    this.#current = { cancel, done };
  }

  /** Cancels a pending timer and waits until it is gone. */
  async stop(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    current?.cancel.abort();
    await current?.done;
  }
}
