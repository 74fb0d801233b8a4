/**
 * The three durations of Lease leader election, with client-go's defaults and start-up rule.
 *
 * A follower takes over a Lease unchanged for the lease duration (by its own clock); the leader
 * stops writing after the renew deadline without a renewal. Their ratio is the clock-rate margin
 * (1.5 by default) before two writers could overlap.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The durations, in milliseconds. */
export interface ElectionTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** client-go's defaults: 15 s, 10 s, 2 s. */
export const DEFAULT_ELECTION_TIMING: ElectionTiming = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's jitter factor: a retry waits period × [1, 2.2). */
export const RETRY_JITTER = 1.2;

/**
 * What is wrong with `timing`, or `undefined`: lease duration > renew deadline > 1.2 × retry
 * period, all positive, the lease duration in whole seconds (as the Lease stores it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { electionTimingProblem } from "./election_timing.ts";
 *
 * assert.equal(
 *   electionTimingProblem({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
 *   "the lease duration (10s) must be longer than the renew deadline (10s)",
 * );
 * ```
 */
export function electionTimingProblem(
  timing: ElectionTiming,
  names: TimingNames = PLAIN_NAMES,
): string | undefined {
  const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = timing;
  for (
    const [name, value] of [
      [names.leaseDuration, leaseDurationMs],
      [names.renewDeadline, renewDeadlineMs],
      [names.retryPeriod, retryPeriodMs],
    ] as const
  ) {
    if (!(value > 0)) return `${name} must be longer than zero (got ${seconds(value)})`;
  }
  if (leaseDurationMs % 1000 !== 0) {
    return `${names.leaseDuration} must be a whole number of seconds, as the Lease stores it (got ${
      seconds(leaseDurationMs)
    })`;
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    return `${names.leaseDuration} (${
      seconds(leaseDurationMs)
    }) must be longer than ${names.renewDeadline} (${seconds(renewDeadlineMs)})`;
  }
  if (renewDeadlineMs <= RETRY_JITTER * retryPeriodMs) {
    return `${names.renewDeadline} (${
      seconds(renewDeadlineMs)
    }) must be longer than ${RETRY_JITTER} × ${names.retryPeriod} (${
      seconds(retryPeriodMs)
    }), so the leader can retry a failed renewal in time`;
  }
  return undefined;
}

/** How the three durations are named in messages (flags, or plain words). */
export interface TimingNames {
  readonly leaseDuration: string;
  readonly renewDeadline: string;
  readonly retryPeriod: string;
}

const PLAIN_NAMES: TimingNames = {
  leaseDuration: "the lease duration",
  renewDeadline: "the renew deadline",
  retryPeriod: "the retry period",
};

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
