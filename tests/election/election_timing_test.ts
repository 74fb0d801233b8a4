/**
 * Start-up validation of the election durations (T-7.1): lease duration > renew deadline >
 * 1.2 × retry period, all positive, the lease duration in whole seconds.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING, electionTimingProblem } from "../../lib/election/election_timing.ts";

Deno.test("T-7.1: election timing validation", async (t) => {
  const cases: [string, number, number, number, string | undefined][] = [
    ["client-go defaults", 15_000, 10_000, 2_000, undefined],
    [
      "lease duration equal to the renew deadline",
      10_000,
      10_000,
      2_000,
      "must be longer than the renew deadline",
    ],
    ["lease duration shorter", 5_000, 10_000, 2_000, "must be longer than the renew deadline"],
    [
      "renew deadline equal to 1.2 × retry period",
      15_000,
      6_000,
      5_000,
      "must be longer than 1.2 × the retry period",
    ],
    ["renew deadline just above 1.2 × retry period", 15_000, 6_001, 5_000, undefined],
    ["zero retry period", 15_000, 10_000, 0, "the retry period must be longer than zero"],
    ["fractional lease duration", 15_500, 10_000, 2_000, "whole number of seconds"],
  ];
  for (const [name, leaseDurationMs, renewDeadlineMs, retryPeriodMs, expected] of cases) {
    await t.step(name, () => {
      const problem = electionTimingProblem({ leaseDurationMs, renewDeadlineMs, retryPeriodMs });
      if (expected === undefined) assert.equal(problem, undefined);
      else assert.ok(problem?.includes(expected), `${problem} should say ${expected}`);
    });
  }
  assert.equal(electionTimingProblem(DEFAULT_ELECTION_TIMING), undefined);
});

Deno.test("the message names the flags when told their names", () => {
  const problem = electionTimingProblem(
    { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    {
      leaseDuration: "--leader-election-lease-duration",
      renewDeadline: "--leader-election-renew-deadline",
      retryPeriod: "--leader-election-retry-period",
    },
  );
  assert.equal(
    problem,
    "--leader-election-lease-duration (10s) must be longer than --leader-election-renew-deadline (10s)",
  );
});
