import assert from "node:assert/strict";
import { RecheckTimer, ReconcileRetry } from "../../lib/controller/reconcile_loop_retry.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";

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

Deno.test("recheck timer: fires once at the end, a later schedule replaces an earlier one, stop() cancels", async () => {
  const clock = new FakeClock();
  const timer = new RecheckTimer(clock);
  const signal = new AbortController().signal;
  const start = clock.now();
  const fired: number[] = [];
  timer.schedule(30_000, { signal, fire: () => fired.push(clock.now() - start) });
  await clock.advance(10_000);
  timer.schedule(60_000, { signal, fire: () => fired.push(clock.now() - start) });
  await clock.advance(50_000);
  assert.equal(fired.length, 0, "the first timer was replaced");
  await clock.advance(10_000);
  assert.deepEqual(fired, [70_000]);
  timer.schedule(5_000, { signal, fire: () => fired.push(clock.now() - start) });
  await timer.stop();
  await clock.advance(10_000);
  assert.deepEqual(fired, [70_000]);
  assert.deepEqual(clock.pending(), []);
});
