import assert from "node:assert/strict";
import { DeadlineTimer } from "../../lib/util/deadline_timer.ts";
import { FakeClock } from "../support/fake_clock.ts";

Deno.test("the deadline timer fires a deadline within one tick after it, and cancelled ones never", async () => {
  const clock = new FakeClock({ start: 0 });
  const fired: string[] = [];
  const timer = new DeadlineTimer<string>(clock, {
    tickMs: 100,
    fire: (item) => fired.push(`${item}@${clock.now()}`),
  });
  const stop = new AbortController();
  const ticking = timer.run(stop.signal);
  timer.add(250, "a");
  const b = timer.add(250, "b");
  timer.cancel(b);
  await clock.advance(250);
  assert.deepEqual(fired, [], "nothing before the deadline's tick boundary");
  await clock.advance(100);
  assert.deepEqual(fired, ["a@300"]);
  stop.abort();
  await ticking;
});

Deno.test("the deadline timer sleeps only while deadlines wait, and stops on its signal", async () => {
  const clock = new FakeClock({ start: 0 });
  const timer = new DeadlineTimer<string>(clock, { tickMs: 100, fire: () => {} });
  const stop = new AbortController();
  const ticking = timer.run(stop.signal);
  await clock.advance(1_000);
  assert.deepEqual(clock.pending(), [], "an empty wheel keeps no timer");
  const entry = timer.add(5_000, "dial");
  await clock.advance(0);
  assert.deepEqual(clock.pending(), [100], "a waiting deadline ticks");
  timer.cancel(entry);
  await clock.advance(100);
  assert.deepEqual(clock.pending(), [], "idle again once the wheel is empty");
  timer.add(5_000, "another");
  stop.abort();
  await ticking;
  assert.deepEqual(clock.pending(), [], "stopping leaves no timer behind");
  assert.equal(timer.size, 1, "a deadline still waiting at the stop never fires");
});
