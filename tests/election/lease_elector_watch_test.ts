/**
 * The elector's Lease watch against the fake API server (a real watch stream): a leader whose
 * Lease is deleted, or written by someone else, stops writing the moment the event arrives, not at
 * its next renewal; the clock is not advanced while it does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { type LeaseApi, LeaseElector } from "../../lib/election/lease_elector.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { WriteFencedError } from "../../lib/kube/errors.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("a leader whose Lease is deleted or taken by hand closes its fence at once, then decides at its next attempt", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const clock = new FakeClock();
  const log = new LogRecorder();
  const elector = new LeaseElector({
    api: client,
    lease: { namespace: "ns", name: "lease" },
    identity: "a",
    timing: DEFAULT_ELECTION_TIMING,
    log,
    clock,
    wallClock: () => new Date(Date.UTC(2026, 11, 5, 12, 0, 0) + clock.now()),
    random: () => 0.5,
  });
  const stop = new AbortController();
  const running = elector.run(stop.signal);
  const lost = () => log.find("info", "leadership lost; this replica stops writing and stands by");
  try {
    await waitFor("a leads", async () => {
      await clock.advance(0);
      return elector.isLeader();
    });
    await waitFor(
      "its Lease watch is open",
      () => server.audit.some((entry) => entry.watch && /leases/.test(entry.path)),
    );

    server.remove("coordination.k8s.io/v1", "Lease", "ns", "lease");
    await waitFor("the fence closed on the deletion", () => !elector.isLeader());
    assert.throws(
      () => elector.fence("PUT /api/v1/namespaces/kube-system/configmaps/coredns"),
      WriteFencedError,
    );
    assert.equal(lost()[0]?.properties.reason, "the lease was deleted");
    // Nothing else could hold it: at its next attempt it re-creates its own Lease and leads again.
    await waitFor("a leads again", async () => {
      await clock.advance(DEFAULT_ELECTION_TIMING.retryPeriodMs);
      return elector.isLeader();
    });

    const current = server.get("coordination.k8s.io/v1", "Lease", "ns", "lease")!;
    server.update({ ...current, spec: { ...(current.spec as object), holderIdentity: "intruder" } });
    await waitFor("the fence closed on another holder's write", () => !elector.isLeader());
    assert.equal(lost()[1]?.properties.reason, "another replica wrote the lease");
    assert.deepEqual(elector.state, { kind: "candidate", holder: "intruder" });
  } finally {
    stop.abort();
    await running;
  }
});

/** A Lease held by `x` for 15 s on `server`, as another replica would have written it. */
function seedHeld(server: FakeApiServer): void {
  server.create({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "lease", namespace: "ns" },
    spec: { holderIdentity: "x", leaseDurationSeconds: 15, leaseTransitions: 0 },
  });
}

/** `x` hands the Lease back, as a stopping leader does. */
function releaseHeld(server: FakeApiServer): void {
  const current = server.get("coordination.k8s.io/v1", "Lease", "ns", "lease")!;
  server.update({
    ...current,
    spec: { ...(current.spec as object), holderIdentity: "", leaseDurationSeconds: 1 },
  });
}

/** Candidate `b` against `api`, the clock never advanced unless the test does. */
function follower(api: LeaseApi, clock: FakeClock) {
  const log = new LogRecorder();
  const elector = new LeaseElector({
    api,
    lease: { namespace: "ns", name: "lease" },
    identity: "b",
    timing: DEFAULT_ELECTION_TIMING,
    log,
    clock,
    wallClock: () => new Date(Date.UTC(2026, 11, 6, 12, 0, 0) + clock.now()),
    random: () => 0.5, // its retries wait 1.6 retry periods
  });
  const stop = new AbortController();
  return { elector, log, stop, running: elector.run(stop.signal) };
}

Deno.test("T-7.6: a follower whose Lease watch reopens after the release takes over at once, not at its next retry", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const clock = new FakeClock();
  seedHeld(server);
  const started = clock.now();
  const b = follower(client, clock);
  try {
    await waitFor("b follows x", () => b.log.find("info", "following the leader").length === 1);
    const watches = () => server.audit.filter((entry) => entry.watch && /leases/.test(entry.path)).length;
    await waitFor("b's Lease watch is open", () => watches() === 1);
    // The stream ends (a server-side timeout), and the release happens before it is reopened: the
    // reopened watch starts with the Lease as it is, an ADDED event naming no holder.
    server.faults.dropWatches();
    releaseHeld(server);
    await clock.advance(DEFAULT_ELECTION_TIMING.retryPeriodMs); // the watch reopens; b's retry is at 1.6
    await waitFor("b's Lease watch reopened", () => watches() === 2);
    await waitFor("b leads without another retry period passing", () => b.elector.isLeader());
    assert.equal(clock.now() - started, DEFAULT_ELECTION_TIMING.retryPeriodMs);
  } finally {
    b.stop.abort();
    await b.running;
  }
});

Deno.test("T-7.6: a release seen while the follower's read of the Lease is in flight is not lost until its next retry", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const clock = new FakeClock();
  seedHeld(server);
  let releasesSeen = 0;
  let raceArmed = false;
  const api: LeaseApi = {
    create: client.create.bind(client),
    update: client.update.bind(client),
    async *watch(type, options) {
      for await (const event of client.watch(type, options)) {
        const spec = event.type === "MODIFIED"
          ? (event.object as { spec?: { holderIdentity?: string } }).spec
          : {};
        if (spec?.holderIdentity === "") releasesSeen++;
        yield event;
      }
    },
    // The read answers with the Lease still held; before its answer is taken, x releases the Lease
    // and b's watch has passed the release on.
    async get(type, ref, options) {
      const read = await client.get(type, ref, options);
      if (raceArmed) {
        raceArmed = false;
        releaseHeld(server);
        await waitFor("b's watch to pass the release on", () => releasesSeen === 1);
      }
      return read;
    },
  };
  const started = clock.now();
  const b = follower(api, clock);
  try {
    await waitFor("b follows x", () => b.log.find("info", "following the leader").length === 1);
    await waitFor(
      "b's Lease watch is open",
      () => server.audit.some((entry) => entry.watch && /leases/.test(entry.path)),
    );
    raceArmed = true;
    await clock.advance(DEFAULT_ELECTION_TIMING.retryPeriodMs * 1.6); // b's next attempt
    await waitFor("b leads without another retry period passing", () => b.elector.isLeader());
    assert.equal(clock.now() - started, DEFAULT_ELECTION_TIMING.retryPeriodMs * 1.6);
  } finally {
    b.stop.abort();
    await b.running;
  }
});
