import assert from "node:assert/strict";
import { IdleReaper } from "../../lib/proxy/idle_reaper.ts";
import { FakeClock } from "../support/fake_clock.ts";

Deno.test("IdleReaper expires a connection only after the timeout passes with no activity", () => {
  const reaper = new IdleReaper(new FakeClock(), 1_000);
  const quiet = { count: 0 };
  const busy = { count: 0 };
  const expired: string[] = [];
  reaper.track(quiet, () => expired.push("quiet"));
  reaper.track(busy, () => expired.push("busy"));
  for (let step = 0; step < 3; step++) {
    busy.count += 1;
    reaper.sweep(300);
  }
  assert.deepEqual(expired, [], "900 ms of silence is not yet the 1 s timeout");
  busy.count += 1;
  reaper.sweep(300);
  assert.deepEqual(expired, ["quiet"]);
  reaper.sweep(5_000);
  assert.deepEqual(expired, ["quiet", "busy"], "the busy one expires once it goes quiet too");
  reaper.sweep(5_000);
  assert.deepEqual(expired, ["quiet", "busy"], "an expired connection is not expired twice");
});

Deno.test("IdleReaper: activity resets the silence count; untracked connections are never expired", () => {
  const reaper = new IdleReaper(new FakeClock(), 1_000);
  const activity = { count: 0 };
  let expired = 0;
  const untrack = reaper.track(activity, () => expired++);
  reaper.sweep(900);
  activity.count += 1;
  reaper.sweep(900);
  assert.equal(expired, 0, "the read between sweeps reset the silence");
  untrack();
  reaper.sweep(10_000);
  assert.equal(expired, 0);
});

Deno.test("IdleReaper with timeout 0 tracks nothing and its run() ends at once", async () => {
  const reaper = new IdleReaper(new FakeClock(), 0);
  let expired = 0;
  reaper.track({ count: 0 }, () => expired++);
  reaper.sweep(1e9);
  assert.equal(expired, 0);
  await reaper.run(new AbortController().signal);
});

Deno.test("IdleReaper.run sweeps on the clock's schedule until the signal aborts", async () => {
  const clock = new FakeClock();
  const stop = new AbortController();
  const reaper = new IdleReaper(clock, 1_000);
  let expired = 0;
  reaper.track({ count: 0 }, () => expired++);
  const running = reaper.run(stop.signal);
  await clock.advance(2_000); // eight sweeps, a quarter of the timeout apart
  stop.abort();
  await running;
  assert.equal(expired, 1, "four quarter-timeout sweeps of silence expire the connection");
});
