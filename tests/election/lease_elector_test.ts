/**
 * The elector against an in-memory Lease store and a fake clock: races, expiry judged by the
 * candidate's own clock, losing leadership at the renew deadline, fencing, release on shutdown.
 * Reliability matrix rows T-7.2, T-7.3, T-7.5, T-7.6 and T-2.21 (in memory; the process tests in
 * tests/controller/controller_election_test.ts repeat them with real processes).
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { WriteFencedError } from "../../lib/kube/errors.ts";
import { FakeClock, settle } from "../support/fake_clock.ts";
import { candidate, leaderAndFollower, stopAll } from "./election_fixture.ts";
import { MemoryLeases } from "./memory_lease_api.ts";

const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = DEFAULT_ELECTION_TIMING;
/** The longest a jittered retry waits. */
const MAX_RETRY_MS = retryPeriodMs * 2.2;

Deno.test("T-7.2: two candidates racing for a missing lease: exactly one wins, the other follows it", async () => {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  const a = candidate(store, "a", clock);
  const b = candidate(store, "b", clock);
  await settle();
  await clock.advance(MAX_RETRY_MS);
  const leaders = [a, b].filter((c) => c.elector.isLeader());
  assert.deepEqual(leaders.length, 1);
  const winner = leaders[0]!.elector.identity;
  const loser = winner === "a" ? b : a;
  assert.deepEqual(loser.elector.state, { kind: "candidate", holder: winner });
  assert.deepEqual(store.lease?.spec.holderIdentity, winner);
  assert.deepEqual(store.writes.filter((write) => write.verb === "create").length, 1);
  assert.deepEqual(loser.log.find("info", "following the leader")[0]?.properties.leader, winner);
  await stopAll(a, b);
});

Deno.test("T-7.3: a partitioned leader stops writing at the renew deadline; the follower takes over only after the lease duration of its own clock", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  await settle();
  assert.deepEqual(b.elector.state, { kind: "candidate", holder: "a" });
  // A renews every retry period while healthy.
  await clock.advance(3 * retryPeriodMs);
  assert(a.elector.isLeader());
  const lastRenewal = clock.now() - (clock.now() % retryPeriodMs);
  store.partition("a");
  const partitionedAt = clock.now();
  // Its fence closes no later than the renew deadline after the last renewal that got through.
  await clock.advance(lastRenewal + renewDeadlineMs - clock.now() - 1);
  await clock.advance(1);
  assert.deepEqual(a.elector.isLeader(), false);
  assert.throws(
    () => a.elector.fence("PUT /api/v1/namespaces/kube-system/configmaps/coredns"),
    WriteFencedError,
  );
  assert(clock.now() - partitionedAt <= renewDeadlineMs);
  // B saw the record change last at A's last renewal; it waits a full lease duration from then.
  assert.deepEqual(b.elector.isLeader(), false);
  await clock.advance(lastRenewal + leaseDurationMs - clock.now() - 1);
  assert.deepEqual(
    b.elector.isLeader(),
    false,
    "the follower took over before the lease expired by its clock",
  );
  await clock.advance(MAX_RETRY_MS + 1);
  assert(b.elector.isLeader());
  assert.deepEqual(store.lease?.spec.holderIdentity, "b");
  assert.deepEqual(store.lease?.spec.leaseTransitions, 1);
  // A heals, sees B holding the lease, and stays a follower that never writes.
  store.heal("a");
  await clock.advance(MAX_RETRY_MS);
  assert.deepEqual(a.elector.state, { kind: "candidate", holder: "b" });
  assert.deepEqual(a.transitions, ["leader", "candidate", "candidate"]);
  assert.deepEqual(a.log.find("info", "leadership lost").length, 1);
  await stopAll(a, b);
});

Deno.test("the holder's timestamps are never trusted: an old renewTime still waits a full lease duration", async () => {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  store.seed({
    holderIdentity: "gone",
    leaseDurationSeconds: 15,
    acquireTime: "2000-01-01T00:00:00.000000Z",
    renewTime: "2000-01-01T00:00:00.000000Z",
    leaseTransitions: 4,
  });
  const b = candidate(store, "b", clock);
  await settle();
  const seenAt = clock.now();
  await clock.advance(leaseDurationMs - 1);
  assert.deepEqual(b.elector.isLeader(), false);
  await clock.advance(MAX_RETRY_MS + 1);
  assert(b.elector.isLeader());
  assert(clock.now() - seenAt >= leaseDurationMs);
  assert.deepEqual(store.lease?.spec.leaseTransitions, 5);
  b.stop.abort();
  await b.running;
});

Deno.test("a record that keeps changing is never expired, whatever its renewTime says", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  for (let i = 0; i < 20; i++) await clock.advance(retryPeriodMs);
  assert(a.elector.isLeader());
  assert.deepEqual(b.elector.isLeader(), false);
  assert.deepEqual(store.writes.filter((write) => write.client === "b").length, 0);
  await stopAll(a, b);
});

Deno.test("T-7.6: a leader releases the lease on shutdown and the follower takes over at its next retry", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  await clock.advance(retryPeriodMs);
  a.stop.abort();
  await a.running;
  assert.deepEqual(a.elector.state, { kind: "stopped" });
  assert.deepEqual(store.lease?.spec.holderIdentity, "");
  assert.deepEqual(a.log.find("info", "leadership released").length, 1);
  const releasedAt = clock.now();
  await clock.advance(MAX_RETRY_MS);
  assert(b.elector.isLeader());
  assert(clock.now() - releasedAt <= MAX_RETRY_MS);
  b.stop.abort();
  await b.running;
});

Deno.test("T-7.6: a renewal cut short by the stop that the server took anyway does not keep the Lease from being released", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  store.loseNextAnswer("a");
  await clock.advance(retryPeriodMs); // a's renewal: applied, its answer never comes
  const renewed = store.writes.filter((write) => write.client === "a").length;
  assert.equal(renewed, 2, "the create and the renewal the server took");
  a.stop.abort();
  await a.running;
  // The resourceVersion a knew was one behind: it read the Lease again, found itself, released it.
  assert.equal(store.lease?.spec.holderIdentity, "");
  assert.equal(a.log.find("info", "leadership released").length, 1);
  assert.equal(
    a.log.find("warn", "could not release the lease; a follower takes over once it expires").length,
    0,
  );
  await clock.advance(MAX_RETRY_MS);
  assert(b.elector.isLeader());
  b.stop.abort();
  await b.running;
});

Deno.test("T-7.6: a stopping leader never releases a Lease another replica has taken since", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  store.loseNextAnswer("a");
  await clock.advance(retryPeriodMs);
  // Someone else writes the Lease before a stops (as a follower would after an expiry).
  store.seed({ ...store.lease!.spec, holderIdentity: "c" });
  a.stop.abort();
  await a.running;
  assert.equal(store.lease?.spec.holderIdentity, "c");
  assert.equal(a.log.find("info", "leadership released").length, 0);
  assert.equal(
    a.log.find("warn", "could not release the lease; a follower takes over once it expires").length,
    0,
  );
  await stopAll(b);
});

Deno.test("T-2.21: the fence closes the moment the renew deadline passes, even if the renew loop has not run", async () => {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  const a = candidate(store, "a", clock);
  await settle();
  a.elector.fence("PUT x"); // passes
  store.partition("a", "hang");
  // Time jumps without the elector getting a turn (a paused process, a starved event loop).
  clock.advanceSync(renewDeadlineMs);
  assert.throws(
    () => a.elector.fence("PUT /api/v1/namespaces/kube-system/configmaps/coredns"),
    (error: unknown) =>
      error instanceof WriteFencedError && error.message.includes("within the renew deadline"),
  );
  a.stop.abort();
  await a.running;
  // It did not hold the lease surely at shutdown: no release is attempted.
  assert.deepEqual(a.log.find("info", "leadership released").length, 0);
});

Deno.test("a candidate that cannot reach the API says so once, then quietly retries until it can", async () => {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  store.partition("a");
  const a = candidate(store, "a", clock);
  await clock.advance(5 * MAX_RETRY_MS);
  assert.deepEqual(a.log.find("warn", "cannot reach the lease").length, 1);
  assert(a.log.find("debug", "cannot reach the lease").length >= 2);
  store.heal("a");
  await clock.advance(MAX_RETRY_MS);
  assert(a.elector.isLeader());
  assert.deepEqual(a.log.find("info", "the lease is reachable again").length, 1);
  a.stop.abort();
  await a.running;
});

Deno.test("retries are jittered between one and 2.2 retry periods", async () => {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  store.seed({ holderIdentity: "other", leaseDurationSeconds: 15 });
  const low = candidate(store, "low", clock, () => 0);
  const high = candidate(store, "high", clock, () => 0.999);
  await settle();
  assert.deepEqual(clock.sleeps.slice(0, 2).sort((x, y) => x - y), [
    retryPeriodMs,
    retryPeriodMs * (1 + 0.999 * 1.2),
  ]);
  await stopAll(low, high);
});

/** The shared clock as seen by a process whose clock runs `rate` times as fast. */
function scaledClock(base: FakeClock, rate: number) {
  const origin = base.now();
  return {
    now: () => origin + (base.now() - origin) * rate,
    sleep: (ms: number, signal?: AbortSignal) => base.sleep(ms / rate, signal),
  };
}

Deno.test("T-7.5: clock rates: a follower's clock may run up to lease duration ÷ renew deadline times faster without two writers", async (t) => {
  for (const [rate, overlapExpected] of [[1.4, false], [1.8, true]] as const) {
    await t.step(
      `follower clock ${rate}× the leader's: ${
        overlapExpected ? "two writers at once" : "never two writers"
      }`,
      async () => {
        const { clock, store, a, b } = await leaderAndFollower({
          followerClock: (shared) => scaledClock(shared, rate),
          followerRandom: () => 0,
        });
        let overlap = false;
        try {
          await clock.advance(retryPeriodMs);
          store.partition("a", "hang");
          for (let step = 0; step < 400 && !b.elector.isLeader(); step++) {
            await clock.advance(50);
            if (a.elector.isLeader() && b.elector.isLeader()) overlap = true;
          }
          assert.ok(b.elector.isLeader(), "the follower took over");
        } finally {
          const stopped = stopAll(a, b);
          // A partitioned leader's release waits for its request deadline.
          await clock.advance(10_000);
          await stopped;
        }
        assert.equal(overlap, overlapExpected);
      },
    );
  }
});

Deno.test("a Lease deleted by hand under a leader whose watch lags: the follower waits a lease duration, never two writers", async () => {
  const { clock, store, a, b } = await leaderAndFollower();
  await clock.advance(retryPeriodMs);
  assert(a.elector.isLeader());
  // The Lease vanishes, and the leader's renewals stop getting through (it may still write until
  // its renew deadline); the follower sees the Lease gone at its next retry.
  store.delete();
  store.partition("a", "hang");
  const deletedAt = clock.now();
  let bFirstLeading: number | undefined;
  while (clock.now() - deletedAt < leaseDurationMs + 2 * MAX_RETRY_MS) {
    await clock.advance(100);
    assert.ok(
      !(a.elector.isLeader() && b.elector.isLeader()),
      `two writers at ${clock.now() - deletedAt} ms`,
    );
    if (b.elector.isLeader()) bFirstLeading ??= clock.now();
  }
  assert.ok(bFirstLeading !== undefined, "the follower took over in the end");
  // It waited a full lease duration from when it saw the Lease gone (no sooner than the deletion).
  assert.ok(bFirstLeading - deletedAt >= leaseDurationMs, `took over ${bFirstLeading - deletedAt} ms after`);
  const bWrites = store.writes.filter((write) => write.client === "b").map((write) => write.verb);
  assert.equal(bWrites[0], "create", "it re-created the Lease, then renewed it");
  assert.equal(bWrites.filter((verb) => verb === "create").length, 1);
  store.heal("a");
  await stopAll(a, b);
});
