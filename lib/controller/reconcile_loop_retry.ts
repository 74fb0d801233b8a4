/**
 * What the reconcile loop (`reconcile_loop.ts`) does about failed and held-off sink calls: the
 * retry delays and how loudly each failure is said ({@linkcode ReconcileRetry}, the shared rule of
 * `lib/daemon/retry_pacing.ts`), and the one-shot timer that calls the sink again when a hold-off
 * it asked for ends ({@linkcode RecheckTimer}).
 *
 * Decisions: a failure is a WARN until the run of failures has lasted 3 attempts and 30 s, then
 * each one is an ERROR; the first success after a run is one INFO `reconcile recovered`. A later
 * hold-off replaces an earlier one's timer (the sink's latest word counts).
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

/**
 * Retry delays and the severity of failures for one sink.
 *
 * @example
 * ```ts
 * import { systemClock } from "../util/clock.ts";
 * import { logger } from "../util/logging.ts";
 * import { ReconcileRetry } from "./reconcile_loop_retry.ts";
 *
 * const retry = new ReconcileRetry({
 *   clock: systemClock,
 *   random: Math.random,
 *   log: logger("controller"),
 *   target: "coredns kube-system/coredns[Corefile]",
 * });
 * const delayMs = retry.failed("503 from the server"); // WARN, 1–1.5 s
 * retry.succeeded(); // INFO "reconcile recovered"
 * ```
 */
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

/**
 * One pending "call the sink again at the end of the hold-off"; scheduling again replaces it.
 *
 * @example
 * ```ts
 * import { systemClock } from "../util/clock.ts";
 * import { RecheckTimer } from "./reconcile_loop_retry.ts";
 *
 * declare const signal: AbortSignal;
 * const timer = new RecheckTimer(systemClock);
 * timer.schedule(30_000, { signal, fire: () => {} }); // fires in 30 s unless replaced or aborted
 * await timer.stop();
 * ```
 */
export class RecheckTimer {
  readonly #clock: Clock;
  #current: { readonly cancel: AbortController; readonly done: Promise<void> } | undefined;

  /** No timer runs until {@linkcode schedule}. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `fire` after `afterMs` unless `signal` aborts or another schedule replaces this one first. */
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
