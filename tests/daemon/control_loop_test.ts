import assert from "node:assert/strict";
import { ControlLoop, type PassVerdict, RecheckTimer } from "../../lib/daemon/control_loop.ts";
import type { LoopTrigger } from "../../lib/daemon/loop_step.ts";
import { LogRecorder } from "../support/log_recorder.ts";
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

/** A loop whose passes run `pass`, with no debounce and caches synced at once. */
function loopOf(
  pass: (signal: AbortSignal) => Promise<PassVerdict>,
  clock: FakeClock,
  log = new LogRecorder(),
) {
  return new ControlLoop<LoopTrigger & { changes: boolean }>({
    none: { changes: false, resync: false, retry: false, leadership: false, recheck: false },
    first: { changes: true },
    target: "test",
    unsynced: () => [],
    subscribe: () => () => {},
    pass: (_trigger, signal) => pass(signal),
    log,
    clock,
    debounceMs: 0,
    resyncMs: 60_000,
  });
}

Deno.test("control loop: a pass the shutdown cut short may reject (a writer's contract): run ends without a rejection", async () => {
  const clock = new FakeClock({ autoAdvance: true });
  const stop = new AbortController();
  const loop = loopOf((signal) =>
    new Promise((_resolve, reject) => {
      stop.abort();
      reject(signal.reason);
    }), clock);
  await loop.run(stop.signal);
});

Deno.test("control loop: a pass that rejects while the loop runs is a failed pass, said and retried, not a stalled loop", async () => {
  const clock = new FakeClock({ autoAdvance: true });
  const stop = new AbortController();
  let passes = 0;
  const log = new LogRecorder();
  const loop = loopOf(
    () => {
      passes += 1;
      if (passes === 1) return Promise.reject(new Error("a bug in a pass"));
      stop.abort();
      return Promise.resolve({ kind: "done" });
    },
    clock,
    log,
  );
  await loop.run(stop.signal);
  assert.equal(passes, 2, "retried after the failure");
  assert.ok(
    log.entries.some((entry) => JSON.stringify(entry).includes("the pass threw: a bug in a pass")),
    "the failure is said with its cause",
  );
});
