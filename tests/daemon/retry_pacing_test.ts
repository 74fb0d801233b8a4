import assert from "node:assert/strict";
import { FailureStreak, ReconcileRetry, RETRY_PACING, RetryPacing } from "../../lib/daemon/retry_pacing.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";

/** Draws `n` delays for failures one right after another (each at the end of the previous delay). */
function draw(pacing: RetryPacing, n: number, start = 0): number[] {
  const delays: number[] = [];
  let now = start;
  for (let i = 0; i < n; i++) {
    const delay = pacing.failed(now);
    delays.push(delay);
    now += delay;
  }
  return delays;
}

Deno.test("retry pacing: no delay is ever under 1 s, whatever the jitter draws", () => {
  for (const draw0 of [0, 0.000001, 0.25, 0.999999]) {
    const delays = draw(new RetryPacing(() => draw0), 12);
    assert.ok(delays.every((delay) => delay >= 1_000), `${draw0}: ${delays.join(", ")}`);
  }
});

Deno.test("retry pacing: bases double from 1 s, the jitter adds up to half, capped at 2 min", () => {
  assert.deepEqual(
    draw(new RetryPacing(() => 0), 9),
    [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000, 120_000],
  );
  assert.deepEqual(draw(new RetryPacing(() => 0.999), 3).map(Math.round), [1_500, 2_999, 5_998]);
  assert.ok(draw(new RetryPacing(() => 0.999), 20).every((delay) => delay <= RETRY_PACING.maxMs));
});

Deno.test("retry pacing: a success alone keeps the doubling; 2 minutes of health start it over", () => {
  const pacing = new RetryPacing(() => 0);
  assert.deepEqual(draw(pacing, 3), [1_000, 2_000, 4_000]);
  pacing.succeeded(7_000);
  assert.equal(pacing.failed(60_000), 8_000, "53 s of health: a flapping server still sees the delays grow");
  pacing.succeeded(70_000);
  pacing.succeeded(150_000); // only the first success after a failure starts the healthy period
  assert.equal(pacing.failed(190_000), 1_000, "120 s of health");
  assert.equal(pacing.attempt, 1);
  pacing.reset();
  assert.equal(pacing.failed(190_001), 1_000);
});

Deno.test("failure streak: WARN until 3 attempts and 30 s, then ERROR; one recovery per run", () => {
  const streak = new FailureStreak();
  assert.deepEqual(streak.failed(0), { level: "warn", attempts: 1, failingForMs: 0 });
  assert.deepEqual(streak.failed(1_000), { level: "warn", attempts: 2, failingForMs: 1_000 });
  assert.deepEqual(
    streak.failed(3_000),
    { level: "warn", attempts: 3, failingForMs: 3_000 },
    "3 attempts, 3 s",
  );
  assert.equal(streak.persistent, false);
  assert.deepEqual(streak.failed(30_000), { level: "error", attempts: 4, failingForMs: 30_000 });
  assert.equal(streak.persistent, true);
  assert.deepEqual(streak.succeeded(31_000), { attempts: 4, failedForMs: 31_000 });
  assert.equal(streak.succeeded(32_000), undefined, "the recovery is said once");
  assert.equal(streak.persistent, false);
  assert.equal(streak.failed(40_000).level, "warn", "a new run starts transient");
});

Deno.test("failure streak: two failures 40 s apart are still transient (3 attempts needed); reset forgets silently", () => {
  const streak = new FailureStreak();
  streak.failed(0);
  assert.equal(streak.failed(40_000).level, "warn");
  assert.equal(streak.failed(41_000).level, "error");
  streak.reset();
  assert.equal(streak.run, undefined);
  assert.equal(streak.succeeded(42_000), undefined);
});

Deno.test("failure streak: the thresholds are options", () => {
  const streak = new FailureStreak({ attempts: 1, forMs: 0 });
  assert.deepEqual(streak.settings, { attempts: 1, forMs: 0 });
  assert.equal(streak.failed(0).level, "error");
});

const TARGET = "coredns kube-system/coredns[Corefile]";

Deno.test("reconcile retry: WARN lines while transient, ERROR once persistent, one INFO at the recovery", () => {
  const clock = new FakeClock();
  const log = new LogRecorder();
  const retry = new ReconcileRetry({ clock, random: () => 0, log, target: TARGET });
  const start = clock.now();
  const delays: number[] = [];
  for (let i = 0; i < 6; i++) {
    const delay = retry.failed("503 Service Unavailable");
    delays.push(delay);
    clock.advanceSync(delay);
  }
  assert.deepEqual(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000]);
  assert.deepEqual(log.entries.map((line) => line.level), ["warn", "warn", "warn", "warn", "warn", "error"]);
  assert.deepEqual(log.entries[5], {
    level: "error",
    message: "reconcile keeps failing; retrying after backoff",
    properties: {
      target: TARGET,
      error: "503 Service Unavailable",
      attempts: 6,
      failingForSeconds: 31,
      retryInSeconds: 32,
    },
  });
  assert.deepEqual(retry.failing(), { since: start, attempts: 6, persistent: true });
  retry.succeeded();
  retry.succeeded();
  assert.deepEqual(log.find("info", "reconcile recovered"), [{
    level: "info",
    message: "reconcile recovered",
    properties: { target: TARGET, attempts: 6, failedForSeconds: 63 },
  }]);
  assert.equal(retry.failing(), undefined);
});

Deno.test("reconcile retry: reset() forgets a run without a recovery line", () => {
  const clock = new FakeClock();
  const log = new LogRecorder();
  const retry = new ReconcileRetry({ clock, random: () => 0, log, target: TARGET });
  retry.failed("fenced");
  retry.reset();
  retry.succeeded();
  assert.equal(log.find("info", "reconcile recovered").length, 0);
  assert.equal(retry.attempt, 0);
});
