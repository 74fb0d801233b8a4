import assert from "node:assert/strict";
import { FakeClock } from "../support/fake_clock.ts";
import { type PollAttempt, pollUntil } from "../../lib/util/poll_until.ts";

const signal = new AbortController().signal;

Deno.test("pollUntil: asks every interval until the answer comes, and returns it", async () => {
  const clock = new FakeClock({ autoAdvance: true });
  const answers: PollAttempt<string>[] = [{ waiting: "2 left" }, { waiting: "1 left" }, { value: "gone" }];
  let asked = 0;
  const outcome = await pollUntil(
    { clock, signal, timeoutMs: 10_000, intervalMs: 1_000 },
    () => Promise.resolve(answers[asked++] ?? { waiting: "never" }),
  );
  assert.deepEqual(outcome, { value: "gone" });
  assert.equal(asked, 3);
  assert.deepEqual(clock.sleeps, [1_000, 1_000]);
});

Deno.test("pollUntil: at the deadline, the last reason; a failed attempt's message is a reason, and the last ask is at the deadline", async () => {
  const clock = new FakeClock({ autoAdvance: true });
  const start = clock.now();
  const askedAt: number[] = [];
  const outcome = await pollUntil({ clock, signal, timeoutMs: 2_500, intervalMs: 1_000 }, () => {
    askedAt.push(clock.now() - start);
    return askedAt.length % 2 === 0
      ? Promise.reject(new Error("403 Forbidden"))
      : Promise.resolve({ waiting: "3 left" });
  });
  assert.deepEqual(askedAt, [0, 1_000, 2_000, 2_500]);
  assert.deepEqual(outcome, { timedOut: "403 Forbidden" });
});

Deno.test("pollUntil: an abort rejects, during an attempt or while waiting", async () => {
  const clock = new FakeClock();
  const stop = new AbortController();
  const waiting = pollUntil(
    { clock, signal: stop.signal, timeoutMs: 60_000, intervalMs: 1_000 },
    () => Promise.resolve({ waiting: "still" }),
  );
  stop.abort(new Error("shutting down"));
  await assert.rejects(waiting, /shutting down/);
  const asking = new AbortController();
  const failing = pollUntil({ clock, signal: asking.signal, timeoutMs: 60_000, intervalMs: 1_000 }, () => {
    asking.abort(new Error("signal during the read"));
    return Promise.reject(new Error("the read was cut"));
  });
  await assert.rejects(failing, /signal during the read/);
});
