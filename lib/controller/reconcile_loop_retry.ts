/**
 * What the loop does about failed and held-off sink calls: retry delays and how loudly each
 * failure is said ({@linkcode ReconcileRetry}), and the timer that calls the sink again when a
 * hold-off ends ({@linkcode RecheckTimer}).
 *
 * A failure is a WARN until the run has lasted 3 attempts and 30 s, then an ERROR; the first
 * success after it is one INFO `reconcile recovered`. A later hold-off replaces an earlier one.
 *
 * Effects: log lines, and timers through the injected clock.
 *
 * @module
 */

import { toSeconds } from "../util/duration.ts";
import {
  FailureStreak,
  type FailureStreakOptions,
  RetryPacing,
  type RetryPacingOptions,
} from "../daemon/retry_pacing.ts";
import type { Clock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import type { FailingRun } from "./loop_status.ts";

/** What {@linkcode ReconcileRetry} is built with. */
export interface ReconcileRetryOptions {
  readonly clock: Clock;
  readonly random: () => number;
  readonly log: Log;
  /** The sink's description, logged as `target`. */
  readonly target: string;
  readonly pacing?: RetryPacingOptions;
  readonly persistence?: FailureStreakOptions;
}

/** Retry delays and the severity of failures for one sink. */
export class ReconcileRetry {
  readonly #options: ReconcileRetryOptions;
  readonly #pacing: RetryPacing;
  readonly #streak: FailureStreak;

  /** Starts with no failure. */
  constructor(options: ReconcileRetryOptions) {
    this.#options = options;
    this.#pacing = new RetryPacing(options.random, options.pacing);
    this.#streak = new FailureStreak(options.persistence);
  }

  /** Consecutive failures the delays count (reset only by health or {@linkcode reset}). */
  get attempt(): number {
    return this.#pacing.attempt;
  }

  /** The current run of failures, for the loop's status. */
  failing(): FailingRun | undefined {
    const run = this.#streak.run;
    return run === undefined ? undefined : { ...run, persistent: this.#streak.persistent };
  }

  /** Records a failed sink call, logs it at its level, and returns the delay before the retry. */
  failed(error: string): number {
    const now = this.#options.clock.now();
    const delayMs = this.#pacing.failed(now);
    const verdict = this.#streak.failed(now);
    const message = verdict.level === "error"
      ? "reconcile keeps failing; retrying after backoff"
      : "reconcile failed; retrying after backoff";
    this.#options.log[verdict.level](message, {
      target: this.#options.target,
      error,
      attempts: verdict.attempts,
      failingForSeconds: toSeconds(verdict.failingForMs),
      retryInSeconds: toSeconds(delayMs),
    });
    return delayMs;
  }

  /** Records a sink call that did not fail; the first after a run of failures logs one INFO. */
  succeeded(): void {
    const now = this.#options.clock.now();
    this.#pacing.succeeded(now);
    const recovery = this.#streak.succeeded(now);
    if (recovery === undefined) return;
    this.#options.log.info("reconcile recovered", {
      target: this.#options.target,
      attempts: recovery.attempts,
      failedForSeconds: toSeconds(recovery.failedForMs),
    });
  }

  /** Forgets failures without a word (leadership moved). */
  reset(): void {
    this.#pacing.reset();
    this.#streak.reset();
  }
}

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
