/**
 * The pure acquire-or-renew decision, as a table, plus a property: whatever the record says about
 * times, a lease held by someone else is never taken before a full lease duration has passed on
 * the candidate's own clock since it last saw the record change.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  microTime,
  newerThan,
  type Observation,
  observe,
  planLeaseAttempt,
  releasedLeaseSpec,
} from "../../lib/election/lease_plan.ts";
import type { Lease, LeaseSpec } from "../../lib/resources/lease.ts";
import { prng } from "../support/random.ts";

const WALL = "2026-12-03T13:37:03.123000Z";

function lease(spec: LeaseSpec, resourceVersion = "7"): Lease {
  return {
    metadata: {
      name: "l",
      namespace: "ns",
      uid: "u",
      resourceVersion,
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    spec,
  };
}

const held: LeaseSpec = {
  holderIdentity: "other",
  leaseDurationSeconds: 15,
  acquireTime: "2026-12-03T13:00:00.000000Z",
  renewTime: "2026-12-03T13:37:00.000000Z",
  leaseTransitions: 3,
};

Deno.test("planLeaseAttempt: the table", async (t) => {
  const seenAt1000 = observe(held, { previous: undefined, now: 1000 });
  const cases: {
    name: string;
    lease: Lease | undefined;
    observed: Observation | undefined;
    now: number;
    expect: string;
    transitions?: number;
    acquireTime?: string;
  }[] = [
    {
      name: "no lease: create it",
      lease: undefined,
      observed: undefined,
      now: 0,
      expect: "create",
      transitions: 0,
    },
    {
      name: "held by another, first seen now: wait",
      lease: lease(held),
      observed: undefined,
      now: 5000,
      expect: "wait",
    },
    {
      name: "held by another, unchanged for 14.999 s: wait",
      lease: lease(held),
      observed: seenAt1000,
      now: 1000 + 14_999,
      expect: "wait",
    },
    {
      name: "held by another, unchanged for 15 s: take over, one more transition",
      lease: lease(held),
      observed: seenAt1000,
      now: 1000 + 15_000,
      expect: "update",
      transitions: 4,
      acquireTime: WALL,
    },
    {
      name: "held by another, changed since seen: wait again from now",
      lease: lease({ ...held, renewTime: "2026-12-03T13:37:02.000000Z" }),
      observed: seenAt1000,
      now: 1000 + 20_000,
      expect: "wait",
    },
    {
      name: "released (no holder): take it at once",
      lease: lease({ ...held, holderIdentity: "" }),
      observed: undefined,
      now: 0,
      expect: "update",
      transitions: 4,
    },
    {
      name: "held by us: renew, keeping acquireTime and the count",
      lease: lease({ ...held, holderIdentity: "me" }),
      observed: undefined,
      now: 0,
      expect: "update",
      transitions: 3,
      acquireTime: held.acquireTime!,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const attempt = planLeaseAttempt({
        identity: "me",
        lease: c.lease,
        observed: c.observed,
        now: c.now,
        wallTime: WALL,
        leaseDurationMs: 15_000,
      });
      assert.equal(attempt.action.kind, c.expect);
      if (attempt.action.kind === "wait") return;
      assert.equal(attempt.action.spec.holderIdentity, "me");
      assert.equal(attempt.action.spec.renewTime, WALL);
      assert.equal(attempt.action.spec.leaseDurationSeconds, 15);
      if (c.transitions !== undefined) assert.equal(attempt.action.spec.leaseTransitions, c.transitions);
      if (c.acquireTime !== undefined) assert.equal(attempt.action.spec.acquireTime, c.acquireTime);
      if (attempt.action.kind === "update") assert.equal(attempt.action.resourceVersion, "7");
    });
  }
});

Deno.test("planLeaseAttempt: a lease held by another is never taken before a full duration of own time", () => {
  const random = prng(11);
  for (let run = 0; run < 500; run++) {
    const duration = 1 + Math.floor(random() * 60);
    const spec: LeaseSpec = {
      holderIdentity: "other",
      leaseDurationSeconds: duration,
      // Any timestamps at all: far past, far future, garbage.
      renewTime: ["1970-01-01T00:00:00.000000Z", "2999-01-01T00:00:00.000000Z", "x"][run % 3]!,
    };
    let observed: Observation | undefined;
    let firstSeen = -1;
    let now = Math.floor(random() * 1e6);
    for (let step = 0; step < 50; step++) {
      const attempt = planLeaseAttempt({
        identity: "me",
        lease: lease(spec),
        observed,
        now,
        wallTime: WALL,
        leaseDurationMs: 15_000,
      });
      observed = attempt.observed;
      if (firstSeen < 0) firstSeen = now;
      if (attempt.action.kind !== "wait") {
        assert.ok(
          now - firstSeen >= duration * 1000,
          `taken after ${now - firstSeen} ms of a ${duration} s lease`,
        );
        break;
      }
      now += Math.floor(random() * 5000);
    }
  }
});

Deno.test("releasedLeaseSpec keeps the transition count and clears the holder", () => {
  assert.deepEqual(releasedLeaseSpec(held, WALL), {
    holderIdentity: "",
    leaseDurationSeconds: 1,
    acquireTime: WALL,
    renewTime: WALL,
    leaseTransitions: 3,
  });
});

Deno.test("microTime writes six fractional digits in UTC, as the API server stores MicroTime", () => {
  assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))), "2026-01-02T03:04:05.006000Z");
});

Deno.test("planLeaseAttempt: a Lease deleted under a live holder is waited out one duration from when it was seen gone", () => {
  const base = { identity: "me", wallTime: WALL, leaseDurationMs: 15_000 };
  // Seen held by another at 1,000 (unexpired), then gone at 5,000: its holder may still be writing.
  const held = planLeaseAttempt({
    ...base,
    lease: lease({ holderIdentity: "other", leaseDurationSeconds: 15 }),
    observed: undefined,
    now: 1_000,
  });
  const gone = planLeaseAttempt({ ...base, lease: undefined, observed: held.observed, now: 5_000 });
  assert.deepEqual(gone.action, { kind: "wait", holder: "other", expiresInMs: 15_000 });
  const still = planLeaseAttempt({ ...base, lease: undefined, observed: gone.observed, now: 19_999 });
  assert.deepEqual(still.action, { kind: "wait", holder: "other", expiresInMs: 1 });
  const after = planLeaseAttempt({ ...base, lease: undefined, observed: still.observed, now: 20_000 });
  assert.equal(after.action.kind, "create");
  // A holder already expired by our clock, our own record, or nothing seen: create at once, as before.
  for (const [observed, now] of [[held.observed, 16_000], [undefined, 5_000]] as const) {
    assert.equal(planLeaseAttempt({ ...base, lease: undefined, observed, now }).action.kind, "create");
  }
  const mine = planLeaseAttempt({
    ...base,
    lease: lease({ holderIdentity: "me", leaseDurationSeconds: 15 }),
    observed: undefined,
    now: 1_000,
  });
  assert.equal(
    planLeaseAttempt({ ...base, lease: undefined, observed: mine.observed, now: 2_000 }).action.kind,
    "create",
  );
  // The Lease back meanwhile (its holder re-created it): judged as a fresh record.
  const back = planLeaseAttempt({
    ...base,
    lease: lease({ holderIdentity: "other", leaseDurationSeconds: 15 }),
    observed: gone.observed,
    now: 6_000,
  });
  assert.deepEqual(back.action, { kind: "wait", holder: "other", expiresInMs: 15_000 });
});

Deno.test("newerThan: resourceVersions compared as numbers; anything not a number is never later", () => {
  const spec: LeaseSpec = { holderIdentity: "a" };
  const cases: [seen: string, written: string | undefined, later: boolean][] = [
    ["8", "7", true],
    ["7", "7", false],
    ["6", "7", false],
    ["10", "9", true], // as numbers, not as strings
    ["123456789012345678901", "123456789012345678900", true], // beyond a double's precision
    ["abc", "7", false],
    ["8", "abc", false],
    ["8", undefined, false], // nothing written yet
  ];
  for (const [seen, written, later] of cases) {
    assert.equal(
      newerThan(lease(spec, seen), written === undefined ? undefined : lease(spec, written)),
      later,
      `${seen} after ${written}`,
    );
  }
});
