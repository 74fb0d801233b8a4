import assert from "node:assert/strict";
import { Throttle, type ThrottleDecision } from "../../lib/util/throttle.ts";
import { FakeClock } from "../support/fake_clock.ts";

type Step = { readonly at: number; readonly key?: string; readonly expect: ThrottleDecision };

Deno.test("the throttle emits the first event, holds back repeats, then reports how many", async (t) => {
  const EMIT = (suppressed: number): ThrottleDecision => ({ emit: true, suppressed });
  const HOLD: ThrottleDecision = { emit: false };
  const cases: readonly { name: string; steps: Step[] }[] = [
    { name: "first event emits with nothing suppressed", steps: [{ at: 0, expect: EMIT(0) }] },
    {
      name: "events inside the interval are held back and counted",
      steps: [
        { at: 0, expect: EMIT(0) },
        { at: 1, expect: HOLD },
        { at: 5_000, expect: HOLD },
        { at: 9_999, expect: HOLD },
        { at: 10_000, expect: EMIT(3) }, // exactly one interval later
        { at: 10_001, expect: HOLD },
        { at: 20_000, expect: EMIT(1) },
      ],
    },
    {
      name: "after a quiet period the next event emits with zero suppressed",
      steps: [
        { at: 0, expect: EMIT(0) },
        { at: 60_000, expect: EMIT(0) },
        { at: 120_000, expect: EMIT(0) },
      ],
    },
    {
      name: "the interval restarts from the last emission, not the first event",
      steps: [
        { at: 0, expect: EMIT(0) },
        { at: 15_000, expect: EMIT(0) },
        { at: 24_999, expect: HOLD },
        { at: 25_000, expect: EMIT(1) },
      ],
    },
    {
      name: "keys are independent",
      steps: [
        { at: 0, key: "dial:http:connection-refused", expect: EMIT(0) },
        { at: 1, key: "dial:https:connection-refused", expect: EMIT(0) },
        { at: 2, key: "dial:http:timeout", expect: EMIT(0) },
        { at: 3, key: "dial:http:connection-refused", expect: HOLD },
        { at: 4, key: "dial:http:connection-refused", expect: HOLD },
        { at: 5, key: "dial:https:connection-refused", expect: HOLD },
        { at: 10_000, key: "dial:http:connection-refused", expect: EMIT(2) },
        { at: 10_001, key: "dial:https:connection-refused", expect: EMIT(1) },
        { at: 10_002, key: "dial:http:timeout", expect: EMIT(0) },
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const clock = new FakeClock();
      const start = clock.now();
      const throttle = new Throttle(clock, 10_000);
      for (const step of c.steps) {
        clock.advanceSync(start + step.at - clock.now());
        assert.deepEqual(throttle.check(step.key ?? "dial:http"), step.expect, `at +${step.at} ms`);
      }
      assert.deepEqual(clock.sleeps, [], "the throttle never sleeps");
    });
  }
});

Deno.test("a burst of thousands of failures produces one line per interval with the full count", () => {
  const clock = new FakeClock();
  const throttle = new Throttle(clock, 10_000);
  const emitted: number[] = [];
  // 5001 events 4 ms apart (t = 0 … 20 s): a backend that refuses everything.
  for (let i = 0; i <= 5_000; i++) {
    const decision = throttle.check("dial:http");
    if (decision.emit) emitted.push(decision.suppressed);
    clock.advanceSync(4);
  }
  assert.deepEqual(clock.sleeps, [], "the throttle never sleeps");
  assert.deepEqual(emitted, [0, 2_499, 2_499]);
  assert.equal(emitted.length + emitted.reduce((a, b) => a + b, 0), 5_001, "every event is accounted for");
});
