import assert from "node:assert/strict";
import { DeadlineWheel } from "../../lib/util/deadline_wheel.ts";
import { prng } from "../support/random.ts";

type Step =
  | { readonly add: string; readonly at: number }
  | { readonly cancel: string }
  | { readonly expire: number; readonly fires: readonly string[] };

Deno.test("the deadline wheel fires each deadline at the first tick boundary at or after it", async (t) => {
  const cases: readonly { name: string; tick: number; steps: readonly Step[] }[] = [
    {
      name: "nothing fires before its deadline's tick boundary",
      tick: 100,
      steps: [{ add: "a", at: 1_250 }, { expire: 1_250, fires: [] }, { expire: 1_299, fires: [] }, {
        expire: 1_300,
        fires: ["a"],
      }],
    },
    {
      name: "a deadline on a boundary fires at that boundary",
      tick: 100,
      steps: [{ add: "a", at: 1_300 }, { expire: 1_299, fires: [] }, { expire: 1_300, fires: ["a"] }],
    },
    {
      name: "a late expire fires every slot passed, soonest first",
      tick: 100,
      steps: [{ add: "late", at: 5_000 }, { add: "early", at: 1_000 }, { add: "mid", at: 2_000 }, {
        expire: 10_000,
        fires: ["early", "mid", "late"],
      }],
    },
    {
      name: "within a slot, in the order added",
      tick: 100,
      steps: [{ add: "a", at: 1_290 }, { add: "b", at: 1_210 }, { expire: 1_300, fires: ["a", "b"] }],
    },
    {
      name: "a cancelled deadline never fires; cancelling twice is harmless",
      tick: 100,
      steps: [{ add: "a", at: 1_000 }, { add: "b", at: 1_000 }, { cancel: "a" }, { cancel: "a" }, {
        expire: 2_000,
        fires: ["b"],
      }],
    },
    {
      name: "a fired deadline does not fire again",
      tick: 100,
      steps: [{ add: "a", at: 1_000 }, { expire: 1_000, fires: ["a"] }, { cancel: "a" }, {
        expire: 5_000,
        fires: [],
      }],
    },
    {
      name: "a deadline added in the past fires at the next expire",
      tick: 100,
      steps: [{ expire: 2_000, fires: [] }, { add: "past", at: 500 }, { expire: 2_000, fires: [] }, {
        expire: 2_100,
        fires: ["past"],
      }],
    },
  ];
  for (const { name, tick, steps } of cases) {
    await t.step(name, () => {
      const wheel = new DeadlineWheel<string>(tick);
      const entries = new Map<string, ReturnType<typeof wheel.add>>();
      for (const step of steps) {
        if ("add" in step) entries.set(step.add, wheel.add(step.at, step.add));
        else if ("cancel" in step) wheel.cancel(entries.get(step.cancel)!);
        else {
          const fired: string[] = [];
          assert.equal(wheel.expire(step.expire, (item) => fired.push(item)), step.fires.length);
          assert.deepEqual(fired, step.fires, `expire(${step.expire})`);
        }
      }
    });
  }
});

Deno.test("the deadline wheel: a callback that cancels a later entry of the same slot stops it", () => {
  const wheel = new DeadlineWheel<string>(10);
  const entries = new Map<string, ReturnType<typeof wheel.add>>();
  for (const name of ["a", "b", "c"]) entries.set(name, wheel.add(100, name));
  const fired: string[] = [];
  wheel.expire(100, (item) => {
    fired.push(item);
    if (item === "a") wheel.cancel(entries.get("b")!);
  });
  assert.deepEqual(fired, ["a", "c"]);
  assert.equal(wheel.size, 0);
});

Deno.test("the deadline wheel refuses a tick that is not a positive number", () => {
  for (const tick of [0, -1, Number.NaN, Infinity]) {
    assert.throws(() => new DeadlineWheel(tick), RangeError, String(tick));
  }
});

Deno.test("deadline wheel (property): never early, at most one tick late, cancelled never, each once", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const random = prng(seed);
    const tick = 1 + Math.floor(random() * 50);
    const wheel = new DeadlineWheel<number>(tick);
    const deadlines = new Map<number, number>();
    const entries = new Map<number, ReturnType<typeof wheel.add>>();
    const cancelled = new Set<number>();
    const firedAt = new Map<number, number>();
    let now = 0;
    let next = 0;
    for (let step = 0; step < 200; step++) {
      const roll = random();
      if (roll < 0.5) {
        const id = next++;
        const at = now + Math.floor(random() * 500) - 50; // some already past
        deadlines.set(id, at);
        entries.set(id, wheel.add(at, id));
      } else if (roll < 0.65 && next > 0) {
        const id = Math.floor(random() * next);
        if (!firedAt.has(id)) cancelled.add(id);
        wheel.cancel(entries.get(id)!);
      } else {
        const previous = now;
        now += Math.floor(random() * 3 * tick);
        wheel.expire(now, (id) => {
          const where = `seed ${seed}, entry ${id}`;
          assert.ok(!firedAt.has(id), `${where} fired twice`);
          assert.ok(!cancelled.has(id), `${where} fired after being cancelled`);
          // Never before its deadline, unless it was added after its deadline had passed, in
          // which case it fires at the first expire after it was added.
          const at = deadlines.get(id)!;
          assert.ok(at <= now, `${where} fired at ${now}, before its deadline ${at}`);
          firedAt.set(id, now);
        });
        for (const [id, at] of deadlines) {
          if (cancelled.has(id) || firedAt.has(id)) continue;
          assert.ok(
            !(at + tick <= now && at > previous),
            `seed ${seed}: entry ${id} (deadline ${at}, tick ${tick}) still waits at ${now}`,
          );
        }
      }
      const waiting = [...deadlines.keys()].filter((id) => !cancelled.has(id) && !firedAt.has(id)).length;
      assert.equal(wheel.size, waiting, `seed ${seed}: size`);
    }
  }
});
