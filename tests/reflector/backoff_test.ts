import assert from "node:assert/strict";
import { Backoff, backoffCeilingMs } from "../../lib/reflector/backoff.ts";
import { FakeClock } from "../support/fake_clock.ts";

/** Draws `n` delays, each followed by its own wait (the retry starts when the delay ends). */
async function draw(backoff: Backoff, clock: FakeClock, n: number): Promise<number[]> {
  const delays: number[] = [];
  for (let i = 0; i < n; i++) {
    const delay = backoff.next();
    delays.push(delay);
    await clock.advance(delay);
  }
  return delays;
}

Deno.test("backoff: ceilings double from 800 ms and stop at 30 s", () => {
  const ceilings = Array.from({ length: 9 }, (_, attempt) => backoffCeilingMs(attempt));
  assert.deepEqual(ceilings, [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000]);
});

Deno.test("backoff: full jitter scales each ceiling by the random draw", async () => {
  for (const r of [0, 0.25, 0.5, 0.999]) {
    const clock = new FakeClock();
    const delays = await draw(new Backoff(clock, () => r), clock, 9);
    const expected = [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000].map((c) => c * r);
    assert.deepEqual(delays, expected, `random ${r}`);
  }
});

Deno.test("backoff: a server-requested minimum (Retry-After) raises a shorter draw", () => {
  const clock = new FakeClock();
  const backoff = new Backoff(clock, () => 0.5);
  assert.equal(backoff.next(3_000), 3_000, "drawn 400 ms < Retry-After 3 s");
  assert.equal(backoff.next(1_000), 1_000, "drawn 800 ms < 1 s");
  assert.equal(backoff.next(1_000), 1_600, "drawn 1.6 s > 1 s: the draw stands");
});

Deno.test("backoff: a wild Retry-After is capped at 5 minutes", () => {
  const backoff = new Backoff(new FakeClock(), () => 0.5);
  assert.equal(backoff.next(86_400_000), 300_000);
});

Deno.test("backoff: two minutes without a failure start the sequence over", async () => {
  const clock = new FakeClock();
  const backoff = new Backoff(clock, () => 0.5);
  assert.deepEqual(await draw(backoff, clock, 5), [400, 800, 1_600, 3_200, 6_400]);
  await clock.advance(119_999);
  assert.equal(backoff.next(), 12_800, "1 ms short of two healthy minutes: still escalating");
  await clock.advance(12_800 + 120_000);
  assert.equal(backoff.next(), 400, "two healthy minutes after the last retry: from the start");
  assert.equal(backoff.attempt, 1);
});

Deno.test("backoff: reset() forgets failures at once", () => {
  const backoff = new Backoff(new FakeClock(), () => 0.5);
  backoff.next();
  backoff.next();
  backoff.reset();
  assert.equal(backoff.next(), 400);
});

Deno.test("backoff: options change the curve", () => {
  const backoff = new Backoff(new FakeClock(), () => 0.5, { initialMs: 10, maxMs: 25, factor: 3 });
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [5, 12.5, 12.5]);
});
