import assert from "node:assert/strict";
import { AddressCache } from "../../lib/util/address_cache.ts";
import { FakeClock } from "../support/fake_clock.ts";

/** One step of a cache's life: an operation at a time (ms from the start) and what lookup says after it. */
type Step =
  | { readonly at: number; readonly remember: string }
  | { readonly at: number; readonly forget: true }
  | { readonly at: number; readonly expect: string | undefined };

const HOST = "ingress.example.svc.cluster.local";

const CASES: readonly { readonly name: string; readonly ttlMs: number; readonly steps: readonly Step[] }[] = [
  { name: "nothing stored misses", ttlMs: 5_000, steps: [{ at: 0, expect: undefined }] },
  {
    name: "a stored address holds until just before the TTL and is gone at it",
    ttlMs: 5_000,
    steps: [
      { at: 0, remember: "10.96.0.20" },
      { at: 0, expect: "10.96.0.20" },
      { at: 4_999, expect: "10.96.0.20" },
      { at: 5_000, expect: undefined },
      { at: 9_000, expect: undefined },
    ],
  },
  {
    name: "remembering again restarts the TTL and replaces the address",
    ttlMs: 5_000,
    steps: [
      { at: 0, remember: "10.96.0.20" },
      { at: 4_000, remember: "10.96.0.21" },
      { at: 8_999, expect: "10.96.0.21" },
      { at: 9_000, expect: undefined },
    ],
  },
  {
    name: "forget drops the entry at once",
    ttlMs: 5_000,
    steps: [{ at: 0, remember: "10.96.0.20" }, { at: 1, forget: true }, { at: 1, expect: undefined }],
  },
  {
    name: "a TTL of 0 keeps nothing",
    ttlMs: 0,
    steps: [{ at: 0, remember: "10.96.0.20" }, { at: 0, expect: undefined }],
  },
];

for (const { name, ttlMs, steps } of CASES) {
  Deno.test(`AddressCache: ${name}`, () => {
    const clock = new FakeClock({ start: 0 });
    const cache = new AddressCache(clock, ttlMs);
    for (const step of steps) {
      clock.advanceSync(step.at - clock.now());
      if ("remember" in step) cache.remember(HOST, step.remember);
      else if ("forget" in step) cache.forget(HOST);
      else assert.equal(cache.lookup(HOST), step.expect, `lookup at ${step.at} ms`);
    }
  });
}

Deno.test("AddressCache: names are kept apart", () => {
  const cache = new AddressCache(new FakeClock(), 5_000);
  cache.remember("a.example", "10.0.0.1");
  cache.remember("b.example", "10.0.0.2");
  cache.forget("a.example");
  assert.equal(cache.lookup("a.example"), undefined);
  assert.equal(cache.lookup("b.example"), "10.0.0.2");
});

Deno.test("AddressCache: a negative TTL is refused", () => {
  assert.throws(() => new AddressCache(new FakeClock(), -1), /TTL must be 0 or more/);
});
