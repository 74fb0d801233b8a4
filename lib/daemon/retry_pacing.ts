/**
 * How the controller's and kuberture's loops retry a failed pass, and how loudly they say so.
 *
 * Delays double from `initialMs` to `maxMs`; jitter only adds (the old full jitter once retried
 * after 231 ms). Only `resetAfterMs` of health restarts them, so a flapping API server still sees
 * them grow. A run of failures is WARN until it lasts both 3 attempts *and* 30 s, then ERROR, so
 * neither a short outage nor a quick burst pages; the first success after it is one INFO.
 *
 * Pure: times are passed in (milliseconds of a monotonic clock); randomness is injected. Only
 * {@linkcode ReconcileRetry} has effects: it reads the injected clock and logs the lines.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { toSeconds } from "../util/duration.ts";
import type { Log } from "../util/logging.ts";

/** Tuning for {@linkcode RetryPacing}. */
export interface RetryPacingOptions {
  /** The first delay's lower bound. @default {1000} */
  readonly initialMs?: number;
  /** The largest delay. @default {120000} */
  readonly maxMs?: number;
  /** Share of the base delay the jitter may add (0.5: up to half again). @default {0.5} */
  readonly jitter?: number;
  /** Health (since the first success after a failure) that resets the delays. @default {120000} */
  readonly resetAfterMs?: number;
}

/** The defaults, resolved: 1 s doubling to 2 min, +0–50 % jitter, reset after 2 min of health. */
export const RETRY_PACING: Required<RetryPacingOptions> = {
  initialMs: 1_000,
  maxMs: 120_000,
  jitter: 0.5,
  resetAfterMs: 120_000,
};

/**
 * Draws retry delays.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RetryPacing } from "./retry_pacing.ts";
 *
 * const pacing = new RetryPacing(() => 0.5);
 * assert.equal(pacing.failed(0), 1250); // 1 s plus a quarter
 * pacing.succeeded(4_000);
 * assert.equal(pacing.failed(10_000), 2500); // only 6 s of health, the delays keep growing
 * ```
 */
export class RetryPacing {
  readonly #random: () => number;
  readonly #options: Required<RetryPacingOptions>;
  #attempt = 0;
  /** When the first success after the last failure came; `undefined` while failing. */
  #healthySince: number | undefined;

  /** `random` returns numbers in [0, 1), like `Math.random`. */
  constructor(random: () => number, options: RetryPacingOptions = {}) {
    this.#random = random;
    this.#options = { ...RETRY_PACING, ...options };
  }

  /** Consecutive failures counted since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }

  /** Records a failure at `now` and returns how long to wait before retrying, in milliseconds. */
  failed(now: number): number {
    const { initialMs, maxMs, jitter, resetAfterMs } = this.#options;
    if (this.#healthySince !== undefined && now - this.#healthySince >= resetAfterMs) this.#attempt = 0;
    this.#healthySince = undefined;
    const base = Math.min(maxMs, initialMs * 2 ** this.#attempt);
    this.#attempt += 1;
    return Math.min(maxMs, base * (1 + jitter * this.#random()));
  }

  /** Records a success at `now` (a healthy period starts at the first since a failure). */
  succeeded(now: number): void {
    this.#healthySince ??= now;
  }

  /** Forgets every failure (leadership moved: the next one is a new story). */
  reset(): void {
    this.#attempt = 0;
    this.#healthySince = undefined;
  }
}

/** Tuning for {@linkcode FailureStreak}. */
export interface FailureStreakOptions {
  /** Consecutive failures a run needs to be persistent. @default {3} */
  readonly attempts?: number;
  /** Time since a run's first failure it needs to be persistent. @default {30000} */
  readonly forMs?: number;
}

/** The defaults, resolved: 3 attempts and 30 s. */
export const FAILURE_STREAK: Required<FailureStreakOptions> = { attempts: 3, forMs: 30_000 };

/** How a failure is to be reported. */
export interface FailureVerdict {
  /** `warn` while the run is transient, `error` once it is persistent. */
  readonly level: "warn" | "error";
  /** Consecutive failures, this one included. */
  readonly attempts: number;
  /** Time since the run's first failure. */
  readonly failingForMs: number;
}

/** A run that ended with a success. */
export interface Recovery {
  /** Failures in the run. */
  readonly attempts: number;
  /** Time from the run's first failure to the success. */
  readonly failedForMs: number;
}

/** Tracks the current run of consecutive failures and words its severity. */
export class FailureStreak {
  readonly #options: Required<FailureStreakOptions>;
  #run: { readonly since: number; attempts: number; persistent: boolean } | undefined;

  /** Starts with no failure. */
  constructor(options: FailureStreakOptions = {}) {
    this.#options = { ...FAILURE_STREAK, ...options };
  }

  /** The tuning in effect, defaults filled in. */
  get settings(): Required<FailureStreakOptions> {
    return this.#options;
  }

  /** True while the current run of failures has passed both thresholds. */
  get persistent(): boolean {
    return this.#run?.persistent ?? false;
  }

  /** The current run of failures; `undefined` when the last attempt succeeded. */
  get run(): { readonly since: number; readonly attempts: number } | undefined {
    return this.#run;
  }

  /** Records a failure at `now`. */
  failed(now: number): FailureVerdict {
    const run = this.#run ?? { since: now, attempts: 0, persistent: false };
    this.#run = run;
    run.attempts += 1;
    const failingForMs = now - run.since;
    run.persistent ||= run.attempts >= this.#options.attempts && failingForMs >= this.#options.forMs;
    return { level: run.persistent ? "error" : "warn", attempts: run.attempts, failingForMs };
  }

  /** Forgets the current run without a recovery (leadership moved: another replica writes now). */
  reset(): void {
    this.#run = undefined;
  }

  /** Records a success at `now`: the run that it ends, if any (say so once). */
  succeeded(now: number): Recovery | undefined {
    const run = this.#run;
    this.#run = undefined;
    return run === undefined ? undefined : { attempts: run.attempts, failedForMs: now - run.since };
  }
}

/** A run of consecutive failed sink calls (see `lib/daemon/retry_pacing.ts`). */
export interface FailingRun {
  /** Clock time of the run's first failure. */
  readonly since: number;
  readonly attempts: number;
  /** True once the run has passed both thresholds. */
  readonly persistent: boolean;
}

/** What {@linkcode ReconcileRetry} is built with. */
export interface ReconcileRetryOptions {
  readonly clock: Clock;
  readonly random: () => number;
  readonly log: Log;
  /** What is retried (a sink's description, kuberture's outputs), logged as `target`. */
  readonly target: string;
  readonly pacing?: RetryPacingOptions;
  readonly persistence?: FailureStreakOptions;
}

/**
 * Retry delays and how loudly each failure is said, for one control loop: a WARN while the run of
 * failures is transient, ERROR once it persists, one INFO at the recovery.
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

  /** Records a failure, logs it at its level, and returns the delay before the retry. */
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

  /** Records a success; the first after a run of failures logs one INFO. */
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
