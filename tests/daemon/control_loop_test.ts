import assert from "node:assert/strict";
import { RecheckTimer } from "../../lib/daemon/control_loop.ts";
import { FakeClock } from "../support/fake_clock.ts";

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
